// @kbx task MatrixMultiply/matmul
// @kbx expect wrong
// @kbx because case primes_batched: left 2018 of 518626 elements of 'c' unwritten
// Part of the output unwritten: a correct 16 x 16 shared-memory tiled matmul, but the launch
// rounds the number of row tiles down (m / 16 instead of cdiv(m, 16)). The cases with m < 16
// (one tile, max(1, 0)) and m = 64 are covered exactly and pass; primes_batched (m = 257, two
// batches) leaves row 256 of each batch unwritten: 2 x 1009 elements, which the poisoned output
// shows. Each output is a sequential fmaf chain over k, like the reference.
// @kbx launch matmul_tiles<<<dim3(max(1, cdiv(n, 16)), max(1, m / 16), max(1, batch)), dim3(16, 16)>>>(a, b, c, m, k, n)

#define T 16

extern "C" __global__ void matmul_tiles(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
					long long m, long long k, long long n)
{
	__shared__ float As[T][T + 1], Bs[T][T + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * T + ty;
	const long long col = (long long)blockIdx.x * T + tx;
	const float *A = a + (long long)blockIdx.z * m * k;
	const float *B = b + (long long)blockIdx.z * k * n;
	float acc = 0.0f;

	for (long long k0 = 0; k0 < k; k0 += T) {
		As[ty][tx] = (row < m && k0 + tx < k) ? A[row * k + k0 + tx] : 0.0f;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? B[(k0 + ty) * n + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < T; kk++)
			acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		c[(long long)blockIdx.z * m * n + row * n + col] = acc;
}
