// @kbx expect wrong
// Mistake: the running sum is kept in bf16 (__hfma in bf16 precision, one rounding per product),
// as a "native bf16" kernel would do. bf16 keeps 8 significant bits, so long sums drift by many
// ulps: bf16_accumulation ends at 768 instead of 788 and test_large fails broadly. KernelBenchX
// asks for f32 accumulation. Shapes and tails are handled.
//
// @kbx launch matmul_bf16_hfma<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, batch)), dim3(16, 16)>>>(a, b, c, m, k, n)

#include <cuda_bf16.h>

extern "C" __global__ void matmul_bf16_hfma(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                                            __nv_bfloat16* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ __nv_bfloat16 As[16][16];
	__shared__ __nv_bfloat16 Bs[16][16];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	const __nv_bfloat16* A = a + (long long)blockIdx.z * m * k;
	const __nv_bfloat16* B = b + (long long)blockIdx.z * k * n;
	__nv_bfloat16 acc = __float2bfloat16(0.0f);
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? A[row * k + k0 + tx] : __float2bfloat16(0.0f);
		Bs[ty][tx] = (k0 + ty < k && col < n) ? B[(k0 + ty) * n + col] : __float2bfloat16(0.0f);
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = __hfma(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		c[(long long)blockIdx.z * m * n + row * n + col] = acc;
}
