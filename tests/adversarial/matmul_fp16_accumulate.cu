// @kbx task MatrixMultiply/matmul
// @kbx expect wrong
// @kbx because case random_standard: output 'c': [0-9]+ of 2048 elements differ
// Precision downgraded: rounds both operands to f16 and accumulates in f16 (__hfma), then widens
// the result to f32. The small-integer corner cases of the KernelBenchX test are exact in f16
// (every product and partial sum is an integer below 2048), so they pass; the first random case
// (64 x 128 @ 128 x 32 randn) is off by ~1e-2 where the task's f32 tolerance is 1e-5.
// @kbx launch matmul_h<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, batch)), dim3(16, 16)>>>(a, b, c, m, k, n)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_h(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
				    long long m, long long k, long long n)
{
	long long row = (long long)blockIdx.y * 16 + threadIdx.y;
	long long col = (long long)blockIdx.x * 16 + threadIdx.x;
	const float *A = a + (long long)blockIdx.z * m * k;
	const float *B = b + (long long)blockIdx.z * k * n;
	if (row >= m || col >= n)
		return;
	__half acc = __float2half(0.0f);
	for (long long kk = 0; kk < k; kk++)
		acc = __hfma(__float2half(A[row * k + kk]), __float2half(B[kk * n + col]), acc);
	c[(long long)blockIdx.z * m * n + row * n + col] = __half2float(acc);
}
