// matmul reference: batched f32 GEMM, c[z] = a[z] @ b[z], row-major, f32 accumulation.
//
// One 256-thread block computes a 64 x 64 tile of c; the k dimension is walked in slices of 16
// staged through shared memory, and each thread keeps a 4 x 4 register block of accumulators
// (rows ty + 16*i, columns tx + 16*j, so shared reads are broadcast / conflict-free and the final
// stores are coalesced). Out-of-range elements of a tile are loaded as 0, so every m, n, k
// (including k = 0, which writes zeros) is handled. Each output is a sequential fmaf chain over
// k in f32, like a plain SGEMM without split-k.
//
// @kbx launch matmul_tiled<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64)), max(1, batch)), 256>>>(a, b, c, m, k, n)

#define BM 64
#define BN 64
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
             long long m, long long k, long long n)
{
	__shared__ float As[BK][BM + 1]; // transposed: As[kk][row], padded against store conflicts
	__shared__ float Bs[BK][BN];

	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM;
	const long long col0 = (long long)blockIdx.x * BN;
	const float* A = a + (long long)blockIdx.z * m * k;
	const float* B = b + (long long)blockIdx.z * k * n;
	float* C = c + (long long)blockIdx.z * m * n;

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < k; k0 += BK) {
		// a tile: 64 rows x 16 k, 4 elements per thread, consecutive threads along k
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / BK, kk = idx % BK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < k) ? A[gr * k + gk] : 0.0f;
		}
		// b tile: 16 k x 64 columns, consecutive threads along n (coalesced)
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int kk = idx / BN, col = idx % BN;
			long long gk = k0 + kk, gc = col0 + col;
			Bs[kk][col] = (gk < k && gc < n) ? B[gk * n + gc] : 0.0f;
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
			if (gc < n)
				C[gr * n + gc] = acc[i][j];
		}
	}
}
