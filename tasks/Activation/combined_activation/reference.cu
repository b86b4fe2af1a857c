// Activation/combined_activation: the reference since 2026-12-01. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// A pipelined SIMT SGEMM with the activation epilogue, bit-identical to the former reference.
//
// What the former reference does, and why it is slow at the perf sizes: one 128 x 128 tile per 256-thread
// block, k in slices of 8 through ONE shared-memory buffer with two __syncthreads per slice and no
// prefetch, so every slice waits for its global loads; its inner loop reads the operands as 16 scalar
// shared loads per 64 FMAs (rows ty + 16 i, columns tx + 16 j). The perf sum is dominated by the two
// 2048 x 2048 x 2048 rows (17.2 GFLOP each), which it runs far below the f32 FMA peak; at 1024 its 64
// tiles leave half the 132 SMs idle.
//
// What this kernel does instead (one template, two tile sizes):
//  - shared memory is double buffered and the next k-slice is prefetched into registers while the
//    current one is multiplied: one __syncthreads per slice, global latency hidden behind 8 k-steps;
//  - the thread's 8 x 8 (or 4 x 4) register block is two 4-wide strips 64 apart in each dimension,
//    so each k-step reads its operands with float4 shared loads (4 loads per 64 FMAs), conflict-free
//    (input is stored transposed, k-major, row stride BM + 4);
//  - global tiles are read with float4 loads when the row length is a multiple of 4 (every perf row),
//    else with guarded scalar loads; out-of-range elements load as 0, so any n, din, dout works
//    (din = 0: z = 0);
//  - 128 x 128 tiles (8 x 8 per thread) when n * dout >= 1536^2 (the 2048 rows: 256 tiles, 2 blocks
//    per SM), 64 x 64 tiles (4 x 4 per thread) below that (1024: 256 tiles instead of 64). The grid of
//    the other launch is 0, and kbx skips a launch with an empty grid.
//
// Why it stays within tolerance: it is bit-identical to the former reference. Every z element is the same
// sequential fmaf chain over k = 0, 1, ..., din - 1 starting from 0 (the former reference's per-thread
// chain; the zero padding past din adds fmaf(0, 0, acc) = acc exactly), and the epilogue is the
// reference's expression (1 / (1 + expf(-z)), tanhf, __fmul_rn, __fadd_rn), so the output does not
// depend on the tiling. A CPU emulation of both programs gives identical bits on every case of
// task.ini and on odd shapes (133 x 37 x 259, 130 x 64 x 132), with either tile size forced.
//
// Expected speed at the largest perf row (2048^3, 17.2 GFLOP): SIMT f32 peak on H200 is ~66 TFLOP/s;
// this kernel shape (double-buffered, float4 fragments, 2 blocks of 8 warps per SM) typically reaches
// 60-70% of it, ~40-45 TFLOP/s, i.e. ~0.40-0.45 ms per 2048 row (PyTorch 0.386 ms). The former reference's
// single-buffered scalar-fragment loop runs at roughly half that, so ~1.7-2x at the 2048 rows and
// ~1.6x on the perf sum (the small rows are launch-latency bound for both).
//
// @kbx launch ca_gemm128<<<dim3(cdiv(dout, 128) * min(1, (n * dout) / 2359296), cdiv(n, 128)), 256>>>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows)
// @kbx launch ca_gemm64<<<dim3(cdiv(dout, 64) * (1 - min(1, (n * dout) / 2359296)), cdiv(n, 64)), 256>>>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows)

#define BK 8

// TM x TN outputs per thread, 16 x 16 threads, tile (16 TM) x (16 TN). Thread (ty, tx) owns rows
// ty * 4 + (i % 4) + 64 * (i / 4) and columns tx * 4 + (j % 4) + 64 * (j / 4).
template <int TM, int TN>
static __device__ __forceinline__ void ca_gemm(const float *__restrict__ A, const float *__restrict__ B,
					       const float *__restrict__ weight2, const float *__restrict__ bias,
					       float *__restrict__ y, long long n, long long din, long long dout,
					       long long w2_rows, long long bias_rows, float (*As)[BK][16 * TM + 4],
					       float (*Bs)[BK][16 * TN])
{
	constexpr int BM = 16 * TM, BN = 16 * TN;
	constexpr int ACH = BM * BK / 4; // float4 chunks of the A tile (row, k-quad)
	constexpr int BCH = BN * BK / 4; // float4 chunks of the B tile (k, column-quad)
	constexpr int AL = (ACH + 255) / 256, BL = (BCH + 255) / 256;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	const bool avec = (din % 4) == 0, bvec = (dout % 4) == 0;
	const long long T = (din + BK - 1) / BK;

	float4 ra[AL], rb[BL];
	auto load = [&](long long k0) {
#pragma unroll
		for (int l = 0; l < AL; l++) {
			const int c = tid + 256 * l;
			float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
			if (c < ACH) {
				const int row = c / 2, q = c % 2;
				const long long gr = row0 + row, gk = k0 + 4 * q;
				if (gr < n) {
					const float *p = A + gr * din + gk;
					if (avec) {
						if (gk < din)
							v = __ldg((const float4 *)p);
					} else {
						if (gk < din) v.x = __ldg(p);
						if (gk + 1 < din) v.y = __ldg(p + 1);
						if (gk + 2 < din) v.z = __ldg(p + 2);
						if (gk + 3 < din) v.w = __ldg(p + 3);
					}
				}
			}
			ra[l] = v;
		}
#pragma unroll
		for (int l = 0; l < BL; l++) {
			const int c = tid + 256 * l;
			float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
			if (c < BCH) {
				const int kk = c / (BN / 4), cq = c % (BN / 4);
				const long long gk = k0 + kk, gc = col0 + 4 * cq;
				if (gk < din) {
					const float *p = B + gk * dout + gc;
					if (bvec) {
						if (gc < dout)
							v = __ldg((const float4 *)p);
					} else {
						if (gc < dout) v.x = __ldg(p);
						if (gc + 1 < dout) v.y = __ldg(p + 1);
						if (gc + 2 < dout) v.z = __ldg(p + 2);
						if (gc + 3 < dout) v.w = __ldg(p + 3);
					}
				}
			}
			rb[l] = v;
		}
	};
	auto store = [&](int buf) {
#pragma unroll
		for (int l = 0; l < AL; l++) {
			const int c = tid + 256 * l;
			if (c < ACH) {
				const int row = c / 2, q = c % 2;
				As[buf][4 * q + 0][row] = ra[l].x;
				As[buf][4 * q + 1][row] = ra[l].y;
				As[buf][4 * q + 2][row] = ra[l].z;
				As[buf][4 * q + 3][row] = ra[l].w;
			}
		}
#pragma unroll
		for (int l = 0; l < BL; l++) {
			const int c = tid + 256 * l;
			if (c < BCH) {
				const int kk = c / (BN / 4), cq = c % (BN / 4);
				*(float4 *)&Bs[buf][kk][4 * cq] = rb[l];
			}
		}
	};

	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	if (T > 0) {
		load(0);
		store(0);
	}
	__syncthreads();
	for (long long t = 0; t < T; t++) {
		const int buf = (int)(t & 1);
		if (t + 1 < T)
			load((t + 1) * BK);
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float a[TM], b[TN];
#pragma unroll
			for (int h = 0; h < TM / 4; h++) {
				const float4 v = *(const float4 *)&As[buf][kk][ty * 4 + 64 * h];
				a[4 * h + 0] = v.x;
				a[4 * h + 1] = v.y;
				a[4 * h + 2] = v.z;
				a[4 * h + 3] = v.w;
			}
#pragma unroll
			for (int h = 0; h < TN / 4; h++) {
				const float4 v = *(const float4 *)&Bs[buf][kk][tx * 4 + 64 * h];
				b[4 * h + 0] = v.x;
				b[4 * h + 1] = v.y;
				b[4 * h + 2] = v.z;
				b[4 * h + 3] = v.w;
			}
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		if (t + 1 < T)
			store(buf ^ 1);
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < TM; i++) {
		const long long gr = row0 + ty * 4 + (i % 4) + 64 * (i / 4);
		if (gr >= n)
			continue;
		const float *w2 = weight2 + (w2_rows == 1 ? 0 : gr) * dout;
		const float *b = bias + (bias_rows == 1 ? 0 : gr) * dout;
#pragma unroll
		for (int j = 0; j < TN; j++) {
			const long long gc = col0 + tx * 4 + (j % 4) + 64 * (j / 4);
			if (gc >= dout)
				continue;
			float s = 1.0f / (1.0f + expf(-acc[i][j]));
			float t = tanhf(s);
			y[gr * dout + gc] = __fadd_rn(__fmul_rn(t, w2[gc]), b[gc]);
		}
	}
}

extern "C" __global__ void __launch_bounds__(256, 2)
ca_gemm128(const float *__restrict__ input, const float *__restrict__ weight1, const float *__restrict__ weight2,
	   const float *__restrict__ bias, float *__restrict__ y, long long n, long long din, long long dout,
	   long long w2_rows, long long bias_rows)
{
	__shared__ __align__(16) float As[2][BK][128 + 4];
	__shared__ __align__(16) float Bs[2][BK][128];
	ca_gemm<8, 8>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows, As, Bs);
}

extern "C" __global__ void __launch_bounds__(256, 3)
ca_gemm64(const float *__restrict__ input, const float *__restrict__ weight1, const float *__restrict__ weight2,
	  const float *__restrict__ bias, float *__restrict__ y, long long n, long long din, long long dout,
	  long long w2_rows, long long bias_rows)
{
	__shared__ __align__(16) float As[2][BK][64 + 4];
	__shared__ __align__(16) float Bs[2][BK][64];
	ca_gemm<4, 4>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows, As, Bs);
}
