// @kbx expect pass
// Correct alternative without tensor cores: the f32 SIMT tiling of MatrixMultiply/matmul (64 x 64
// tile, 4 x 4 outputs per thread, k slices of 16 in shared memory), bf16 values converted to f32 on
// the way into shared memory, a sequential fmaf chain per output and one rounding to bf16.
//
// @kbx launch matmul_bf16_simt<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64)), max(1, batch)), 256>>>(a, b, c, m, k, n)

#include <cuda_bf16.h>

extern "C" __global__ void __launch_bounds__(256)
matmul_bf16_simt(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                 __nv_bfloat16* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ float As[16][65];
	__shared__ float Bs[16][64];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * 64, col0 = (long long)blockIdx.x * 64;
	const __nv_bfloat16* A = a + (long long)blockIdx.z * m * k;
	const __nv_bfloat16* B = b + (long long)blockIdx.z * k * n;
	__nv_bfloat16* C = c + (long long)blockIdx.z * m * n;
	float acc[4][4] = {};
	for (long long k0 = 0; k0 < k; k0 += 16) {
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / 16, kk = idx % 16;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < k) ? __bfloat162float(A[gr * k + gk]) : 0.0f;
			int kb = idx / 64, col = idx % 64;
			long long gkb = k0 + kb, gc = col0 + col;
			Bs[kb][col] = (gkb < k && gc < n) ? __bfloat162float(B[gkb * n + gc]) : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < 16; kk++)
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(As[kk][ty + 16 * i], Bs[kk][tx + 16 * j], acc[i][j]);
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			long long gr = row0 + ty + 16 * i, gc = col0 + tx + 16 * j;
			if (gr < m && gc < n)
				C[gr * n + gc] = __float2bfloat16_rn(acc[i][j]);
		}
}
