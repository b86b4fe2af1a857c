// matmul_bf16 reference: batched c[z] = a[z] @ b[z], bf16 in and out, f32 accumulation, row-major.
//
// Tensor cores through WMMA (m16n16k16, bf16 x bf16 -> f32 accumulator): the products of two bf16
// values are exact in f32 and the accumulator is f32, so the result is an f32 sum of the k
// products, rounded to bf16 once at the end (__float2bfloat16_rn), as cuBLAS does for torch.matmul.
//
// Tiling: a 256-thread block (8 warps, 2 x 4) computes a 128 x 128 tile of c; each warp owns a
// 64 x 32 sub-tile, i.e. 4 x 2 accumulator fragments. k advances 32 at a time through shared
// memory (rows padded by 8 values: 16-byte aligned rows, fewer bank conflicts); the next slice is
// fetched into registers while the current one is multiplied. Global loads are 16-byte vectors
// (8 values) when the row length allows it (k % 8 == 0 for a, n % 8 == 0 for b: every row then
// starts 16-byte aligned), element by element otherwise; anything outside the matrices loads as
// 0, so every m, n, k works (k = 0 writes zeros). The epilogue stages each 16 x 16 fragment in a
// per-warp shared buffer and writes the in-range elements.
//
// Accuracy: exact products, f32 sum (the order of the hardware's k16 steps), one rounding to bf16.
//
// @kbx launch matmul_bf16_wmma<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(m, 128)), max(1, batch)), 256>>>(a, b, c, m, k, n)

#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define LDA (BK + 8)  // values per row of the a tile
#define LDB (BN + 8)  // values per row of the b tile

// Eight consecutive bf16 values of row `row` starting at column `col` of a rows x cols matrix, as a
// uint4; zeros outside. vec: the row length is a multiple of 8, so an in-range col (a multiple
// of 8) has all eight in range and the address is 16-byte aligned.
__device__ __forceinline__ uint4 load8(const unsigned short* __restrict__ p, long long rows, long long cols,
                                       long long row, long long col, bool vec)
{
	if (row >= rows || col >= cols)
		return make_uint4(0u, 0u, 0u, 0u);
	const unsigned short* q = p + row * cols + col;
	if (vec)
		return *reinterpret_cast<const uint4*>(q);
	unsigned int h[8];
#pragma unroll
	for (int e = 0; e < 8; e++)
		h[e] = (col + e < cols) ? q[e] : 0u;
	return make_uint4(h[0] | h[1] << 16, h[2] | h[3] << 16, h[4] | h[5] << 16, h[6] | h[7] << 16);
}

extern "C" __global__ void __launch_bounds__(256)
matmul_bf16_wmma(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                 __nv_bfloat16* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ __align__(32) __nv_bfloat16 As[BM * LDA];
	__shared__ __align__(32) __nv_bfloat16 Bs[BK * LDB];
	__shared__ __align__(32) float stage[8][16 * 16];

	const int tid = threadIdx.x;
	const int warp = tid / 32, lane = tid % 32;
	const int wr = warp / 4, wc = warp % 4;  // warp's 64 x 32 sub-tile: rows wr*64, columns wc*32
	const long long row0 = (long long)blockIdx.y * BM;
	const long long col0 = (long long)blockIdx.x * BN;
	const unsigned short* A = reinterpret_cast<const unsigned short*>(a) + (long long)blockIdx.z * m * k;
	const unsigned short* B = reinterpret_cast<const unsigned short*>(b) + (long long)blockIdx.z * k * n;
	__nv_bfloat16* C = c + (long long)blockIdx.z * m * n;
	const bool vec_a = (k % 8) == 0, vec_b = (n % 8) == 0;

	// this thread's share of a slice: two 8-value pieces of a (128 rows x 4 pieces) and of b
	// (32 rows x 16 pieces)
	int a_row[2], a_col[2], b_row[2], b_col[2];
#pragma unroll
	for (int r = 0; r < 2; r++) {
		int idx = tid + 256 * r;
		a_row[r] = idx / 4;
		a_col[r] = (idx % 4) * 8;
		b_row[r] = idx / 16;
		b_col[r] = (idx % 16) * 8;
	}

	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);

	uint4 ra[2], rb[2];
#pragma unroll
	for (int r = 0; r < 2; r++) {
		ra[r] = load8(A, m, k, row0 + a_row[r], a_col[r], vec_a);
		rb[r] = load8(B, k, n, b_row[r], col0 + b_col[r], vec_b);
	}

	for (long long k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
		for (int r = 0; r < 2; r++) {
			*reinterpret_cast<uint4*>(&As[a_row[r] * LDA + a_col[r]]) = ra[r];
			*reinterpret_cast<uint4*>(&Bs[b_row[r] * LDB + b_col[r]]) = rb[r];
		}
		__syncthreads();
		if (k0 + BK < k) { // prefetch the next slice while this one is multiplied
#pragma unroll
			for (int r = 0; r < 2; r++) {
				ra[r] = load8(A, m, k, row0 + a_row[r], k0 + BK + a_col[r], vec_a);
				rb[r] = load8(B, k, n, k0 + BK + b_row[r], col0 + b_col[r], vec_b);
			}
		}
#pragma unroll
		for (int kk = 0; kk < BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[4];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb[2];
#pragma unroll
			for (int i = 0; i < 4; i++)
				wmma::load_matrix_sync(fa[i], &As[(wr * 64 + i * 16) * LDA + kk], LDA);
#pragma unroll
			for (int j = 0; j < 2; j++)
				wmma::load_matrix_sync(fb[j], &Bs[kk * LDB + wc * 32 + j * 16], LDB);
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 2; j++)
					wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
		}
		__syncthreads();
	}

	float* st = stage[warp];
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 2; j++) {
			wmma::store_matrix_sync(st, acc[i][j], 16, wmma::mem_row_major);
			__syncwarp();
#pragma unroll
			for (int e = 0; e < 8; e++) {
				int idx = lane + 32 * e;
				long long gr = row0 + wr * 64 + i * 16 + idx / 16;
				long long gc = col0 + wc * 32 + j * 16 + idx % 16;
				if (gr < m && gc < n)
					C[gr * n + gc] = __float2bfloat16_rn(st[idx]);
			}
			__syncwarp();
		}
}
