// @kbx expect wrong
// Mistake: TF32 tensor cores (wmma m16n16k8, precision::tf32). Inputs keep 10 mantissa bits, so
// each product carries ~1e-3 relative error and a k = 128 randn dot product is off by ~1e-3
// absolute, against 1e-5: PyTorch's f32 matmul does not use TF32 unless allow_tf32 is set.
// Tails are handled (zero-filled tiles), so only the precision is wrong.
//
// @kbx launch matmul_tf32<<<dim3(max(1, cdiv(n, 32)), max(1, cdiv(m, 32)), max(1, batch)), 128>>>(a, b, c, m, k, n)

#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void matmul_tf32(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ __align__(32) float As[32 * 8]; // 32 rows x 8 k, row-major
	__shared__ __align__(32) float Bs[8 * 32]; // 8 k x 32 columns, row-major
	__shared__ __align__(32) float Cs[32 * 32];
	const int tid = threadIdx.x, warp = tid / 32;
	const int wm = warp / 2, wn = warp % 2;
	const long long row0 = (long long)blockIdx.y * 32, col0 = (long long)blockIdx.x * 32;
	const float* A = a + (long long)blockIdx.z * m * k;
	const float* B = b + (long long)blockIdx.z * k * n;
	float* C = c + (long long)blockIdx.z * m * n;

	wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
	wmma::fill_fragment(acc, 0.0f);
	for (long long k0 = 0; k0 < k; k0 += 8) {
		for (int idx = tid; idx < 256; idx += 128) {
			int r = idx / 8, q = idx % 8;
			long long gr = row0 + r, gk = k0 + q;
			As[idx] = (gr < m && gk < k) ? A[gr * k + gk] : 0.0f;
			int kr = idx / 32, cc = idx % 32;
			long long gk2 = k0 + kr, gc = col0 + cc;
			Bs[idx] = (gk2 < k && gc < n) ? B[gk2 * n + gc] : 0.0f;
		}
		__syncthreads();
		wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
		wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
		wmma::load_matrix_sync(fa, As + wm * 16 * 8, 8);
		wmma::load_matrix_sync(fb, Bs + wn * 16, 32);
		for (int t = 0; t < fa.num_elements; t++)
			fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
		for (int t = 0; t < fb.num_elements; t++)
			fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
		wmma::mma_sync(acc, fa, fb, acc);
		__syncthreads();
	}
	wmma::store_matrix_sync(Cs + wm * 16 * 32 + wn * 16, acc, 32, wmma::mem_row_major);
	__syncthreads();
	for (int idx = tid; idx < 1024; idx += 128) {
		long long gr = row0 + idx / 32, gc = col0 + idx % 32;
		if (gr < m && gc < n)
			C[gr * n + gc] = Cs[idx];
	}
}
