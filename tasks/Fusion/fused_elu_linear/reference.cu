// Fusion/fused_elu_linear: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 15/15 outputs pass (max err 3.8e-06); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 1.9 ms
// against 17.5 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Why the reference is slow at the perf sizes (input [1024, k], weight [256, k], k = 2^8..2^16,
// f32): it measured 17.49 ms over the nine rows against 2.105 ms for PyTorch (golden / ref 0.12).
// linear_tiled accumulates in f64 (to round the product correctly once), and the H200 has half
// the f64 FMA rate of f32; its 64 x 64 tiles with 4 x 4 outputs per thread reload 2 shared-memory
// operands per FMA, and the output has only 16 x 4 = 64 tiles, so at most 64 of the 132 SMs work,
// each walking all of k alone (at k = 65536: 4096 slices of 16, one block per SM).
//
// This version, stage 1 (sgemm_splitk): a classic f32 SIMT GEMM tile of 128 x 128 per block of 256
// threads, 8 x 8 outputs per thread (two 4 x 4 quadrants, so that each k step reads 2 + 2 float4
// from shared memory for 64 FMAs), k in slices of 8 staged through double-buffered shared memory
// (one barrier per slice; the next slice's global loads are in registers while this one is
// multiplied). Both operands are read along k as float4 (k % 4 == 0; scalar loads otherwise) and
// stored transposed ([k][row], rows padded to 132 floats: conflict-free stores and float4 reads).
// k is split into S chunks (blockIdx.z) so that the 16 output tiles of the perf rows fill the GPU:
// S = max(1, min(16, k / 128, 264 / tiles)), 16 at k >= 2048 (256 blocks: one wave at 2 blocks per
// SM under __launch_bounds__(256, 2)), 1 at k < 256. Each chunk writes its f32 partial sums to a
// scratch buffer [S, m, n] (no atomics: deterministic). Stage 2 (elu_splitk): y = elu(sum over the
// S partials in order z = 0, 1, .. + bias), elu as PyTorch's CUDA formula (v > 0 ? v : alpha *
// expm1f(v)); the linear stage is not kept (no `linear` buffer).
//
// Precision: f32 FMA accumulation, as the task's tolerance comment allows (the reference's linear
// is the correctly rounded f64 sum; PyTorch's is f32). With S = 1 (every case with k < 256: the
// KernelBenchX draws at k = 128, their derived scaled cases, the prime and small shapes) each
// output is acc = fmaf(input[i, kk], weight[j, kk], acc) for kk = 0, 1, .. k - 1 from 0, then
// acc + bias, then elu: bit for bit the arithmetic of examples/pass_fused_epilogue.cu, a passing
// candidate. With S > 1 the chunks' sums are added in f32: every case with k >= 256 uses small
// integers (exact in any order, as task.ini says); for randn data the error is that of any f32
// GEMM order (~1e-6 relative to sum |x w|), what PyTorch's cuBLAS does. NaN / inf propagate
// through the products and sums as in the reference (special_values: NaN row stays NaN,
// 1 + bias -inf gives elu(-inf) = -alpha; k = 0 gives elu(bias)). Zero-filled tile padding is
// only multiplied into outputs that are never stored.
//
// Expected at k = 65536 (34.4 GFLOP): at ~60-70% of the 67 TFLOPS f32 FMA peak, 0.75-0.85 ms
// (golden 0.897 ms, reference ~7.3 ms); the partial buffer is 16 MB (L2) and stage 2 reads it
// once (~5 us). The whole sweep: ~1.7-2 ms against the reference's 17.49 ms (~9x).
//
// Checked (not yet run on a GPU): compiled and ABI-checked with kbx (verdict not_run, no device),
// ptxas: 127 registers, no spills. A numpy emulation in f32 of both kernels (every block, the
// 256 threads' load / store / epilogue index sets, the double-buffered k loop, the split chunks,
// the float4 and the scalar load paths, fmaf order, stage 2; every partial written exactly once)
// against the f64 reference model: every task.ini case passes (k = 0, 1, 2, 4, 8, 41, 128 with
// S = 1, the derived x3 / x0.01 / x-1 scalings of random_standard with their widened atol, worst
// 0.61 of the tolerance on random_outlier); with S = 1 the outputs equal the sequential fmaf
// model of pass_fused_epilogue.cu bit for bit; the small-integer cases are exact with S = 7
// (k = 1000), S = 2 (perf_layout, k = 256) and on extra shapes [130, 1030] x [131, 1030] (S = 8,
// scalar path, partial tiles) and [70, 2052] x [129, 2052] (S = 16, float4 path, with randn: 1.9x
// the tolerance there, which is why task.ini uses integers at k >= 256).
//
// @kbx scratch part f32 [max(1, max(1, min(min(16, k / 128), 264 / max(1, cdiv(m, 128) * cdiv(n, 128)))) * m * n)]
// @kbx launch sgemm_splitk<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(m, 128)), max(1, min(min(16, k / 128), 264 / max(1, cdiv(m, 128) * cdiv(n, 128))))), 256>>>(input, weight, part, m, n, k, i32(max(1, min(min(16, k / 128), 264 / max(1, cdiv(m, 128) * cdiv(n, 128))))))
// @kbx launch elu_splitk<<<max(1, min(cdiv(m * n, 256), 8192)), 256>>>(part, bias, y, m, n, i32(max(1, min(min(16, k / 128), 264 / max(1, cdiv(m, 128) * cdiv(n, 128))))), alpha)

#define BM 128
#define BN 128
#define BK 8
#define LDS (BM + 4)

// part[z, i, j] = sum over kk in chunk z of a[i, kk] * w[j, kk]: a [m, kdim], w [n, kdim].
extern "C" __global__ void __launch_bounds__(256, 2)
sgemm_splitk(const float *__restrict__ a, const float *__restrict__ w, float *__restrict__ part, long long m,
	     long long n, long long kdim, int splits)
{
	__shared__ __align__(16) float As[2][BK][LDS]; // As[buf][kk][row]
	__shared__ __align__(16) float Ws[2][BK][LDS]; // Ws[buf][kk][col]
	const int tid = threadIdx.x;
	const int tx = tid & 15, ty = tid >> 4;     // compute: rows 4 ty + {0..3} (+ 64), cols 4 tx + {0..3} (+ 64)
	const int lr = tid >> 1, kq = (tid & 1) * 4; // global loads: row lr of the tile, k offset kq .. kq + 3
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	const long long kc = ((kdim + splits - 1) / splits + BK - 1) / BK * BK;
	const long long kbeg = (long long)blockIdx.z * kc;
	const long long kend = kbeg + kc < kdim ? kbeg + kc : kdim;
	const int steps = kend > kbeg ? (int)((kend - kbeg + BK - 1) / BK) : 0;
	const bool vec = (kdim & 3) == 0;
	const bool arow = row0 + lr < m, wrow = col0 + lr < n;
	const float *ap = a + (arow ? (row0 + lr) * kdim : 0);
	const float *wp = w + (wrow ? (col0 + lr) * kdim : 0);

	float acc[8][8];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;

	float4 ra = make_float4(0.f, 0.f, 0.f, 0.f), rw = make_float4(0.f, 0.f, 0.f, 0.f);
	// the slice starting at k0 into ra, rw (zero outside the matrix and the chunk)
#define LOADG(k0)                                                                                  \
	do {                                                                                       \
		const long long kk0 = (k0) + kq;                                                   \
		if (vec) {                                                                         \
			const bool in = kk0 < kend;                                                \
			ra = (in && arow) ? *reinterpret_cast<const float4 *>(ap + kk0)            \
					  : make_float4(0.f, 0.f, 0.f, 0.f);                       \
			rw = (in && wrow) ? *reinterpret_cast<const float4 *>(wp + kk0)            \
					  : make_float4(0.f, 0.f, 0.f, 0.f);                       \
		} else {                                                                           \
			ra.x = (arow && kk0 < kend) ? ap[kk0] : 0.f;                               \
			ra.y = (arow && kk0 + 1 < kend) ? ap[kk0 + 1] : 0.f;                       \
			ra.z = (arow && kk0 + 2 < kend) ? ap[kk0 + 2] : 0.f;                       \
			ra.w = (arow && kk0 + 3 < kend) ? ap[kk0 + 3] : 0.f;                       \
			rw.x = (wrow && kk0 < kend) ? wp[kk0] : 0.f;                               \
			rw.y = (wrow && kk0 + 1 < kend) ? wp[kk0 + 1] : 0.f;                       \
			rw.z = (wrow && kk0 + 2 < kend) ? wp[kk0 + 2] : 0.f;                       \
			rw.w = (wrow && kk0 + 3 < kend) ? wp[kk0 + 3] : 0.f;                       \
		}                                                                                  \
	} while (0)
#define STORES(buf)                                                                                \
	do {                                                                                       \
		As[buf][kq + 0][lr] = ra.x;                                                        \
		As[buf][kq + 1][lr] = ra.y;                                                        \
		As[buf][kq + 2][lr] = ra.z;                                                        \
		As[buf][kq + 3][lr] = ra.w;                                                        \
		Ws[buf][kq + 0][lr] = rw.x;                                                        \
		Ws[buf][kq + 1][lr] = rw.y;                                                        \
		Ws[buf][kq + 2][lr] = rw.z;                                                        \
		Ws[buf][kq + 3][lr] = rw.w;                                                        \
	} while (0)

	if (steps > 0) {
		LOADG(kbeg);
		STORES(0);
		__syncthreads();
	}
	for (int st = 0; st < steps; st++) {
		const int buf = st & 1;
		if (st + 1 < steps)
			LOADG(kbeg + (long long)(st + 1) * BK);
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			const float4 a0 = *reinterpret_cast<const float4 *>(&As[buf][kk][4 * ty]);
			const float4 a1 = *reinterpret_cast<const float4 *>(&As[buf][kk][64 + 4 * ty]);
			const float4 b0 = *reinterpret_cast<const float4 *>(&Ws[buf][kk][4 * tx]);
			const float4 b1 = *reinterpret_cast<const float4 *>(&Ws[buf][kk][64 + 4 * tx]);
			const float av[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		if (st + 1 < steps)
			STORES(buf ^ 1);
		__syncthreads();
	}
#undef LOADG
#undef STORES

	float *pz = part + (long long)blockIdx.z * m * n;
	const bool vst = (n & 3) == 0;
#pragma unroll
	for (int i = 0; i < 8; i++) {
		const long long r = row0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4);
		if (r >= m)
			continue;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const long long c = col0 + 64 * h + 4 * tx;
			float *dst = pz + r * n + c;
			if (vst) {
				if (c < n)
					*reinterpret_cast<float4 *>(dst) =
						make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
			} else {
#pragma unroll
				for (int j = 0; j < 4; j++)
					if (c + j < n)
						dst[j] = acc[i][4 * h + j];
			}
		}
	}
}

// y[i, j] = elu(part[0, i, j] + part[1, i, j] + .. + bias[j]), PyTorch's CUDA elu in f32.
extern "C" __global__ void __launch_bounds__(256)
elu_splitk(const float *__restrict__ part, const float *__restrict__ bias, float *__restrict__ y, long long m,
	   long long n, int splits, float alpha)
{
	const long long total = m * n;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
	     e += (long long)gridDim.x * blockDim.x) {
		float v = part[e];
		for (int z = 1; z < splits; z++)
			v += part[(long long)z * total + e];
		v = v + bias[e % n];
		y[e] = v > 0.0f ? v : alpha * expm1f(v);
	}
}
