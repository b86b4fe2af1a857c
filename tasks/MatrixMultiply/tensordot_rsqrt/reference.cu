// tensordot_rsqrt reference: y[i, s, t] = rsqrt(sum_{j < u, l < v} a[i, j, l] * b[s, l, j, t]), f32.
//
// A GEMM y = rsqrt(A @ B) with A = a viewed [m, K] (K = u * v, k = j * v + l: a is already row-major
// that way) and B [K, N] (N = p * q, column c = s * q + t) read from b in place:
// B[k, c] = b[((s * v + l) * u + j) * q + t]. The tiling is MatrixMultiply/matmul's: a 64 x 64 tile
// per 256-thread block, k slices of 16 through shared memory (out-of-range elements load as 0),
// 4 x 4 register block per thread, sequential fmaf chain over k. A thread loads the same column c
// of B for the whole k loop, so (s, t) is decomposed once; for u = 1 (dims = 1 and every 2-D
// case) the row address is just (s * v + k) * q + t, otherwise k is split into (j, l) per element.
// Epilogue: rsqrtf, the CUDA function PyTorch's rsqrt calls for f32 (IEEE special cases,
// <= 2 ulp).
//
// Accuracy: the f32 sum of K positive products (relative ~1e-7 .. 1e-6), then rsqrtf.
//
// @kbx launch tensordot_rsqrt_tiled<<<dim3(max(1, cdiv(p * q, 64)), max(1, cdiv(m, 64))), 256>>>(a, b, y, m, u, v, p, q)

#define BM 64
#define BN 64
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
tensordot_rsqrt_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                      long long m, long long u, long long v, long long p, long long q)
{
	__shared__ float As[BK][BM + 1]; // transposed: As[kk][row], padded against store conflicts
	__shared__ float Bs[BK][BN];

	const long long K = u * v, N = p * q;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM;
	const long long col0 = (long long)blockIdx.x * BN;

	// the column of B this thread loads: c = s * q + t -> b[s, ., ., t]
	const int bcol = tid % BN;
	const long long c = col0 + bcol;
	const bool c_ok = c < N;
	const float* bc = b;
	if (c_ok) {
		long long s = c / q, t = c % q;
		bc = b + s * v * u * q + t;
	}

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < K; k0 += BK) {
		// A tile: 64 rows x 16 k, consecutive threads along k
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / BK, kk = idx % BK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < K) ? a[gr * K + gk] : 0.0f;
		}
		// B tile: 16 k x 64 columns, consecutive threads along the columns
		for (int r = 0; r < 4; r++) {
			int kk = tid / BN + 4 * r;
			long long gk = k0 + kk;
			float val = 0.0f;
			if (c_ok && gk < K) {
				long long off;
				if (u == 1) {
					off = gk * q;
				} else {
					long long j = gk / v, l = gk % v;
					off = (l * u + j) * q;
				}
				val = bc[off];
			}
			Bs[kk][bcol] = val;
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

	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc < N)
				y[gr * N + gc] = rsqrtf(acc[i][j]);
		}
	}
}
