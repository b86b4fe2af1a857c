// symmetric_mm_and_abs_sum reference: y = sum |alpha * (A @ A^T) + beta * C|, f32 data, f64 total.
//
// syrk_abs_partial: S = A @ A^T is symmetric, so only the tile pairs (bi, bj) with bi <= bj are
//   computed (T = cdiv(n, 64) tiles per side, T * (T + 1) / 2 blocks, half the products of a full
//   GEMM). Each 256-thread block runs MatrixMultiply/matmul's tiling on a 64 x 64 tile of S (both
//   operands are rows of A, loaded along k and stored transposed in shared memory; k slices of 16;
//   4 x 4 register block; sequential fmaf chain over k, which gives S[i][j] and S[j][i] the same
//   bits). The tile is used twice: for C'[i][j] with C's tile (bi, bj), and, off the diagonal,
//   for C'[j][i] with C's tile (bj, bi), staged transposed through shared memory so that both
//   reads of C are coalesced. Each C' entry is round(round(alpha * S) + round(beta * C)) as
//   PyTorch's separate ops give; |C'| is summed per thread in f64, then over the block (warp
//   shuffles, shared memory) into one partial per block. No atomics.
// abs_sum_final: one block adds the partials in f64; y is rounded to f32 once.
//
// Accuracy: entries of C' are f32 sums of m products; the total is their correctly rounded
// absolute sum (no cancellation).
//
// @kbx scratch part f64 [max(1, cdiv(n, 64) * (cdiv(n, 64) + 1) / 2)]
// @kbx launch syrk_abs_partial<<<max(1, cdiv(n, 64) * (cdiv(n, 64) + 1) / 2), 256>>>(A, C, part, n, m, alpha, beta)
// @kbx launch abs_sum_final<<<1, 256>>>(part, y, i64(max(1, cdiv(n, 64) * (cdiv(n, 64) + 1) / 2)))

#define BLOCK 256
#define BT 64
#define BK 16

// Sum of v over the block (blockDim.x == BLOCK); the result is valid in thread 0.
__device__ __forceinline__ double block_sum(double v)
{
	__shared__ double warp_sums[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	v = (threadIdx.x < BLOCK / 32) ? warp_sums[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
syrk_abs_partial(const float* __restrict__ A, const float* __restrict__ C, double* __restrict__ part, long long n,
                 long long m, float alpha, float beta)
{
	__shared__ float As[BK][BT + 1]; // As[kk][row]: rows of tile bi
	__shared__ float Bs[BK][BT + 1]; // Bs[kk][col]: rows of tile bj
	__shared__ float Ct[BT][BT + 1]; // Ct[c][r] = C[c0 + c][r0 + r], the mirrored tile

	const long long T = (n + BT - 1) / BT;
	long long L = blockIdx.x;
	double local = 0.0;
	if (L < T * (T + 1) / 2) {
		// L -> (bi, bj), bi <= bj: row bi holds the T - bi pairs (bi, bi .. T - 1)
		long long bi = 0;
		while (L >= T - bi) {
			L -= T - bi;
			bi++;
		}
		const long long bj = bi + L;
		const long long r0 = bi * BT, c0 = bj * BT;
		const int tid = threadIdx.x;
		const int tx = tid % 16, ty = tid / 16;

		float acc[4][4];
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				acc[i][j] = 0.0f;

		for (long long k0 = 0; k0 < m; k0 += BK) {
			for (int r = 0; r < 4; r++) {
				int idx = tid + 256 * r;
				int row = idx / BK, kk = idx % BK;
				long long gk = k0 + kk;
				long long ga = r0 + row, gb = c0 + row;
				As[kk][row] = (ga < n && gk < m) ? A[ga * m + gk] : 0.0f;
				Bs[kk][row] = (gb < n && gk < m) ? A[gb * m + gk] : 0.0f;
			}
			__syncthreads();
#pragma unroll
			for (int kk = 0; kk < BK; kk++) {
				float av[4], bv[4];
				for (int i = 0; i < 4; i++)
					av[i] = As[kk][ty + 16 * i];
				for (int j = 0; j < 4; j++)
					bv[j] = Bs[kk][tx + 16 * j];
				for (int i = 0; i < 4; i++)
					for (int j = 0; j < 4; j++)
						acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
			}
			__syncthreads();
		}

		// C'[i][j] for the tile itself
		for (int i = 0; i < 4; i++) {
			long long gr = r0 + ty + 16 * i;
			for (int j = 0; j < 4; j++) {
				long long gc = c0 + tx + 16 * j;
				if (gr < n && gc < n) {
					float v = __fadd_rn(__fmul_rn(alpha, acc[i][j]), __fmul_rn(beta, C[gr * n + gc]));
					local += (double)fabsf(v);
				}
			}
		}
		// C'[j][i] = alpha * S[i][j] + beta * C[j][i] for the mirrored tile, off the diagonal
		if (bi != bj) {
			for (int e = tid; e < BT * BT; e += BLOCK) {
				int c = e / BT, r = e % BT; // consecutive threads along C's row (r)
				long long gc = c0 + c, gr = r0 + r;
				Ct[c][r] = (gc < n && gr < n) ? C[gc * n + gr] : 0.0f;
			}
			__syncthreads();
			for (int i = 0; i < 4; i++) {
				long long gr = r0 + ty + 16 * i;
				for (int j = 0; j < 4; j++) {
					long long gc = c0 + tx + 16 * j;
					if (gr < n && gc < n) {
						float v = __fadd_rn(__fmul_rn(alpha, acc[i][j]),
						                    __fmul_rn(beta, Ct[tx + 16 * j][ty + 16 * i]));
						local += (double)fabsf(v);
					}
				}
			}
		}
	}
	local = block_sum(local);
	if (threadIdx.x == 0)
		part[blockIdx.x] = local;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
abs_sum_final(const double* __restrict__ part, float* __restrict__ y, long long nparts)
{
	double acc = 0.0;
	for (long long i = threadIdx.x; i < nparts; i += BLOCK)
		acc += part[i];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[0] = (float)acc;
}
