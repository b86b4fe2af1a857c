// addmm reference: y = beta * input + alpha * (mat1 @ mat2), f32, row-major.
//
// The tiled SGEMM of MatrixMultiply/matmul: one 256-thread block computes a 64 x 64 tile of y; k
// is walked in slices of 16 staged through shared memory (out-of-range elements load as 0, so any
// m, n, k works, k = 0 included), and each thread keeps a 4 x 4 register block of accumulators
// (rows ty + 16*i, columns tx + 16*j: broadcast / conflict-free shared reads, coalesced stores).
// Each product is a sequential fmaf chain over k in f32, like a plain SGEMM without split-k.
// Epilogue as cuBLAS: alpha * acc, plus beta * input only when beta != 0, so that input is never
// read for beta = 0 (NaN / inf there do not propagate, as PyTorch documents).
//
// Accuracy: the f32 sum of k products; against another f32 order it differs by ~2^-24 * k / sqrt(3)
// times the products' scale (see task.ini), against f64 by about as much.
//
// @kbx launch addmm_tiled<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64))), 256>>>(input, mat1, mat2, y, m, k, n, beta, alpha)

#define BM 64
#define BN 64
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
addmm_tiled(const float* __restrict__ input, const float* __restrict__ a, const float* __restrict__ b,
            float* __restrict__ y, long long m, long long k, long long n, float beta, float alpha)
{
	__shared__ float As[BK][BM + 1]; // transposed: As[kk][row], padded against store conflicts
	__shared__ float Bs[BK][BN];

	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM;
	const long long col0 = (long long)blockIdx.x * BN;

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < k; k0 += BK) {
		// mat1 tile: 64 rows x 16 k, 4 elements per thread, consecutive threads along k
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / BK, kk = idx % BK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < k) ? a[gr * k + gk] : 0.0f;
		}
		// mat2 tile: 16 k x 64 columns, consecutive threads along n (coalesced)
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int kk = idx / BN, col = idx % BN;
			long long gk = k0 + kk, gc = col0 + col;
			Bs[kk][col] = (gk < k && gc < n) ? b[gk * n + gc] : 0.0f;
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
			if (gc >= n)
				continue;
			float v = alpha * acc[i][j];
			if (beta != 0.0f)
				v = fmaf(beta, input[gr * n + gc], v);
			y[gr * n + gc] = v;
		}
	}
}
