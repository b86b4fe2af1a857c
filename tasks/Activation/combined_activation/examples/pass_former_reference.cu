// @kbx expect pass
// The former reference, replaced on 2026-12-01 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// combined_activation: y = tanh(sigmoid(input @ weight1)) * weight2 + bias, f32 throughout.
//   z = input[n, din] @ weight1[din, dout], accumulated in f32 (torch.mm runs a full-f32 SGEMM:
//       TF32 is off by default for matmul);
//   s = 1 / (1 + expf(-z)); t = tanhf(s); m = t * w2; y = m + b, each rounded to f32 as PyTorch's
//       separate kernels do (__fmul_rn / __fadd_rn keep the compiler from fusing them into an FMA).
// weight2 / bias rows: w2_rows (bias_rows) = n is a full [n, dout] tensor (the KernelBenchX test),
// = 1 one [dout] row broadcast over all rows (the perf workload).
// Accuracy: only z depends on the summation order. An f32 dot product of length din differs between
// orders by ~1e-7 * |partial sums|; sigmoid' <= 1/4 (and tiny once |z| is large) and tanh' <= 1
// shrink that before the multiply by w2, and where w2 is large (outliers) y is large too
// (t >= 0.26 for z >= -1), so a correct f32 result stays well inside 1e-5 + 1e-5 |y|.
//
// GEMM: one 256-thread block computes a 128 x 128 tile of z; k is walked in slices of 8 staged
// through shared memory (input transposed and padded against bank conflicts), each thread keeps an
// 8 x 8 register block (rows ty + 16 i, columns tx + 16 j: broadcast / conflict-free shared reads,
// coalesced stores). Out-of-range tile elements load as 0, so any n, din, dout works (din = 0 gives
// z = 0). The activation epilogue runs on the registers, so z never goes to memory.

// @kbx launch combined_activation_f32<<<dim3(max(1, cdiv(dout, 128)), max(1, cdiv(n, 128))), 256>>>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows)

#define BM 128
#define BN 128
#define BK 8

extern "C" __global__ void __launch_bounds__(256)
combined_activation_f32(const float *__restrict__ input, const float *__restrict__ weight1,
			const float *__restrict__ weight2, const float *__restrict__ bias,
			float *__restrict__ y, long long n, long long din, long long dout,
			long long w2_rows, long long bias_rows)
{
	__shared__ float As[BK][BM + 4];
	__shared__ float Bs[BK][BN];

	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM;
	const long long col0 = (long long)blockIdx.x * BN;

	float acc[8][8];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < din; k0 += BK) {
#pragma unroll
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / BK, kk = idx % BK; /* 8 consecutive k of one row per 8 threads */
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < n && gk < din) ? input[gr * din + gk] : 0.0f;
		}
#pragma unroll
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int kk = idx / BN, col = idx % BN; /* consecutive threads along dout: coalesced */
			long long gk = k0 + kk, gc = col0 + col;
			Bs[kk][col] = (gk < din && gc < dout) ? weight1[gk * dout + gc] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float av[8], bv[8];
#pragma unroll
			for (int i = 0; i < 8; i++)
				av[i] = As[kk][ty + 16 * i];
#pragma unroll
			for (int j = 0; j < 8; j++)
				bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < 8; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= n)
			continue;
		const float *w2 = weight2 + (w2_rows == 1 ? 0 : gr) * dout;
		const float *b = bias + (bias_rows == 1 ? 0 : gr) * dout;
#pragma unroll
		for (int j = 0; j < 8; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc >= dout)
				continue;
			float s = 1.0f / (1.0f + expf(-acc[i][j]));
			float t = tanhf(s);
			y[gr * dout + gc] = __fadd_rn(__fmul_rn(t, w2[gc]), b[gc]);
		}
	}
}
