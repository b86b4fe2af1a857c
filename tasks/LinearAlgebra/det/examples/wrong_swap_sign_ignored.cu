// @kbx expect wrong
// Mistake: the row swaps of partial pivoting are done but not counted: det is the plain product
// of the pivots, so its sign is wrong whenever an odd number of rows was exchanged: always in
// swap_2x2 and swap_odd_3x3, in about half of the random matrices (test_case_4 swaps nothing).
//
// @kbx scratch w f32 [n, n]
// @kbx launch det_lu_nosign<<<sms, 256, max(4, n * 4)>>>(a, w, d, n) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __launch_bounds__(256)
det_lu_nosign(const float* __restrict__ a, float* __restrict__ w, float* __restrict__ d, long long n)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ int perm[]; // logical row r lives in physical row perm[r]
	__shared__ float s_val[8];
	__shared__ int s_idx[8];
	const int tid = threadIdx.x, lane = tid % 32, wid = tid / 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + tid;
	const long long gstride = (long long)gridDim.x * blockDim.x;

	for (long long i = gtid; i < n * n; i += gstride)
		w[i] = a[i];
	for (int r = tid; r < n; r += blockDim.x)
		perm[r] = r;
	grid.sync();

	float det = 1.0f;
	for (int j = 0; j < n; j++) {
		// every block: pivot = first logical row r >= j with the largest |w[perm[r], j]|
		float best = -1.0f;
		int bi = -1;
		for (int r = j + tid; r < n; r += blockDim.x) {
			float v = fabsf(w[(long long)perm[r] * n + j]);
			if (v > best) {
				best = v;
				bi = r;
			}
		}
		for (int off = 16; off > 0; off >>= 1) {
			float ov = __shfl_xor_sync(0xffffffffu, best, off);
			int oi = __shfl_xor_sync(0xffffffffu, bi, off);
			if (ov > best || (ov == best && oi >= 0 && (bi < 0 || oi < bi))) {
				best = ov;
				bi = oi;
			}
		}
		if (lane == 0) {
			s_val[wid] = best;
			s_idx[wid] = bi;
		}
		__syncthreads();
		if (tid == 0) {
			for (int q = 1; q < 8; q++)
				if (s_val[q] > best || (s_val[q] == best && s_idx[q] >= 0 && (bi < 0 || s_idx[q] < bi))) {
					best = s_val[q];
					bi = s_idx[q];
				}
			int p = bi < 0 ? j : bi;
			int t = perm[j];
			perm[j] = perm[p];
			perm[p] = t;
		}
		__syncthreads();
		const long long prow = (long long)perm[j] * n;
		const float piv = w[prow + j];
		if (blockIdx.x == 0 && tid == 0)
			det *= piv; // BUG: a row swap at step j must negate the determinant
		if (piv != 0.0f) {
			const float inv = 1.0f / piv;
			// rows r > j over the grid's warps, lanes along the row
			for (long long r = j + 1 + gtid / 32; r < n; r += gstride / 32) {
				const long long row = (long long)perm[r] * n;
				const float l = w[row + j] * inv;
				for (long long k = j + 1 + lane; k < n; k += 32)
					w[row + k] -= l * w[prow + k];
			}
		}
		grid.sync();
	}
	if (gtid == 0)
		d[0] = det;
}
