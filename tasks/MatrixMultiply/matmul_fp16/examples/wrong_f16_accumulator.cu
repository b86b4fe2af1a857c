// @kbx expect wrong
// Mistake: tensor cores with an f16 accumulator (wmma accumulator fragment of __half): the running
// sum is rounded to f16 after every 16-wide k step. At k = 1024 (test_large) partial sums of ~32
// lose ~0.01 per step and tens of thousands of outputs leave the 5e-3 tolerance; KernelBenchX asks
// for f32 accumulation. Tails are handled (zero-padded tiles in shared memory).
//
// @kbx launch matmul_fp16_hacc<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, batch)), 32>>>(a, b, c, m, k, n)

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void matmul_fp16_hacc(const __half* __restrict__ a, const __half* __restrict__ b,
                                            __half* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ __align__(32) __half As[16 * 16];
	__shared__ __align__(32) __half Bs[16 * 16];
	__shared__ __align__(32) __half Cs[16 * 16];
	const int lane = threadIdx.x;
	const long long row0 = (long long)blockIdx.y * 16, col0 = (long long)blockIdx.x * 16;
	const __half* A = a + (long long)blockIdx.z * m * k;
	const __half* B = b + (long long)blockIdx.z * k * n;
	__half* C = c + (long long)blockIdx.z * m * n;
	wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
	wmma::fill_fragment(acc, __float2half(0.0f));
	for (long long k0 = 0; k0 < k; k0 += 16) {
		for (int e = lane; e < 256; e += 32) {
			int r = e / 16, q = e % 16;
			As[e] = (row0 + r < m && k0 + q < k) ? A[(row0 + r) * k + k0 + q] : __float2half(0.0f);
			Bs[e] = (k0 + r < k && col0 + q < n) ? B[(k0 + r) * n + col0 + q] : __float2half(0.0f);
		}
		__syncwarp();
		wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
		wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
		wmma::load_matrix_sync(fa, As, 16);
		wmma::load_matrix_sync(fb, Bs, 16);
		wmma::mma_sync(acc, fa, fb, acc);
		__syncwarp();
	}
	wmma::store_matrix_sync(Cs, acc, 16, wmma::mem_row_major);
	__syncwarp();
	for (int e = lane; e < 256; e += 32) {
		long long gr = row0 + e / 16, gc = col0 + e % 16;
		if (gr < m && gc < n)
			C[gr * n + gc] = Cs[e];
	}
}
