// Fusion/fused_cross_entropy_softmax_layernorm: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 30/30 outputs pass (max err 1.9e-06); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 2.3 ms
// against 15.3 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Faster version: one read of the logits and one write of the output. One warp per row holds the
// row in registers and produces its loss terms and its layer-normalised probabilities; the loss
// reduction folds into per-block partial sums.
//
// What the reference does, and why it is slow at the perf sizes: seven launches that keep every
// stage in memory. log_softmax reads the [n, c] logits and writes [n, c] log-probabilities,
// softmax reads them again and writes [n, c] probabilities, ln_stats reads those twice and
// ln_apply reads them once more and writes the output: ~6 passes of 2 GB at the largest perf row
// (n = 524288, c = 1024) instead of the 2 (read logits, write output) the computation needs; and
// its sums run in f64 with an f32 -> f64 conversion per element (a 16/clk/SM unit on H200).
//
// What this kernel does instead (ce_softmax_ln_rows, 128 threads = 4 warps, grid-stride over rows
// with a fixed grid): a warp loads its row once into registers (c <= 1024: 32 values per lane;
// float4 loads when c % 4 == 0, as in every perf row, else strided scalar loads), then
//   max (fmaxf: NaN dropped there and brought back by exp, as in the reference); e = expf(x - max)
//   (kept); s = sum e; ls = logf(s); p = e * (1 / s); layer norm of p with a two-pass mean and
//   variance in f32 (mean first, then the centred squares; per-lane sums of 32 values in 4
//   interleaved accumulators, then warp shuffles); output = (p - mean) * rstd, written once.
//   Loss terms of the row: lp_t = (x_t - max) - ls (x_t re-read from global, an L1/L2 hit; the
//   row's target is loaded one row ahead so that its latency never stalls the warp),
//   nll = -w[t] * lp_t, nll weight w[t], and with label smoothing -sum_j w[j] * lp_j (f64 sum of
//   f32 products, as the reference). 'none' writes the row's loss directly; 'mean' / 'sum' add the
//   row's terms into the warp's f64 partials, the block combines its 4 warps in a fixed order into
//   ce_block_part[blockIdx.x], and ce_reduce (one block) sums those in a fixed order: deterministic.
//   Rows longer than 1024 take a slower path that re-reads the row from global memory (no case or
//   perf row has one).
//
// Why it stays within tolerance: the probabilities differ from the reference's by a few ulp (f32
// sums of the exponentials instead of f64, e * (1 / s) instead of e / s): relative ~1e-7. The
// layer norm multiplies deviations of p by rstd <= 1 / sqrt(eps) ~ 316, and p <= 1, so its output
// moves by <~ 1e-7 * |p - mean| * rstd relative plus ~1e-8 absolute from the f32 mean / variance of
// values near 1 / c: far below atol = rtol = 1e-5. The variance is two-pass (centred), like the
// reference's, so a constant row gives exactly 0. The log-probabilities differ by ~1e-6 absolute
// at most (logf and the f32 sum; they are ~-7 at c = 1024, where the tolerance is ~8e-5); the
// per-sample losses use the reference's f32 expressions and all cross-sample sums stay in f64.
// A CPU emulation of both programs over every case of task.ini plus c = 1020 / 1023 / 1024 / 1027 /
// 1500, 3000 rows, logits scaled by 0.01, 3 and -1, puts the worst element at 0.044 of the
// tolerance (outputs) and 0.015 (losses).
//
// Expected speed at the largest perf row (n = 524288, c = 1024): 2.15 GB read + 2.15 GB written =
// 4.3 GB at ~3.6-4.0 TB/s = ~1.1-1.2 ms (PyTorch 4.1 ms; the reference's 7 passes, ~15 GB plus the
// f64 conversions, take ~5-6 ms there: its perf sum is 12 ms and each row doubles the previous).
// Per element ~20 f32 instructions (expf, one multiply, the sums, the normalisation), ~0.3 ms of
// issue time on 132 SMs, hidden under the memory time. In flight: 20 warps per SM (96 registers,
// 5 blocks of 4 warps), 4 KB per warp. So ~4-5x at the largest row and on the perf sum (~2.5 ms;
// the small rows also drop from 7 launches to 2).
//
// (The partials' scratch is sized for 8192 blocks, the grid is at most 20 blocks per SM: 2640 on
// H200, i.e. 4 full waves of 5 resident blocks per SM.)
// @kbx scratch ce_block_part f64 [3 * max(1, min(cdiv(n, 4), 8192))]
// @kbx launch ce_softmax_ln_rows<<<max(1, min(cdiv(n, 4), min(sms * 20, 8192))), 128>>>(logits, targets, weight, loss, output, ce_block_part, n, c, ignore_index, reduction, label_smoothing, eps)
// @kbx launch ce_reduce<<<1, 256>>>(ce_block_part, loss, i64(max(1, min(cdiv(n, 4), min(sms * 20, 8192)))), c, reduction, label_smoothing)

#define NEG_INF __int_as_float(0xff800000)
#define MAXV 32 // values per lane held in registers (c <= 32 * MAXV)

static __device__ __forceinline__ float warp_max(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

static __device__ __forceinline__ float warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

static __device__ __forceinline__ double warp_sum_d(double v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

extern "C" __global__ void __launch_bounds__(128, 5)
ce_softmax_ln_rows(const float *__restrict__ x, const long long *__restrict__ target, const float *__restrict__ weight,
		   float *__restrict__ loss, float *__restrict__ out, double *__restrict__ part, long long n, long long c,
		   long long ignore_index, int reduction, float label_smoothing, float eps)
{
	__shared__ double wpart[3][4];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const long long nwarps = (long long)gridDim.x * 4;
	// Register layout of a row (c <= 1024): vec (c % 4 == 0): slot i holds column
	// 4 * (lane + 32 * (i / 4)) + i % 4 (float4 loads); else slot i holds column lane + 32 * i.
	const bool regs = c <= 32 * MAXV;
	const bool vec = regs && (c % 4) == 0;
	double acc_nll = 0.0, acc_w = 0.0, acc_s = 0.0; // this warp's rows (lane 0)

	long long r = (long long)blockIdx.x * 4 + warp;
	long long t = r < n ? target[r] : 0; // the row's target, loaded one row ahead
	for (; r < n; r += nwarps) {
		const float *xr = x + r * c;
		float *orow = out + r * c;
		const bool keep = t != ignore_index;
		float xt = 0.0f, wt = 0.0f;
		// the loss inputs, fetched once the row's max is known (their latency then overlaps exp)
		auto fetch = [&]() {
			if (keep) {
				xt = xr[t];
				wt = weight[t];
			}
		};
		long long t_next = 0;
		float m, ls;
		if (regs) {
			float v[MAXV];
			// slot i lies in the row iff lane + 32 * (vec ? i / 4 : i) < (vec ? c / 4 : c)
			const long long lim = vec ? c / 4 : c;
#define IN(i) (lane + 32 * (vec ? (i) / 4 : (i)) < lim)
			// ---- load; slots past the row hold -inf and are masked out below ----
			if (vec) {
				const float4 *x4 = (const float4 *)xr;
				const long long c4 = c / 4;
#pragma unroll
				for (int i = 0; i < MAXV / 4; i++) {
					const long long q = lane + 32 * i;
					float4 t4 = make_float4(NEG_INF, NEG_INF, NEG_INF, NEG_INF);
					if (q < c4)
						t4 = __ldg(x4 + q);
					v[4 * i + 0] = t4.x;
					v[4 * i + 1] = t4.y;
					v[4 * i + 2] = t4.z;
					v[4 * i + 3] = t4.w;
				}
				if (r + nwarps < n)
					t_next = target[r + nwarps];
			} else {
#pragma unroll
				for (int i = 0; i < MAXV; i++) {
					const long long j = lane + 32 * i;
					v[i] = j < c ? __ldg(xr + j) : NEG_INF;
				}
				if (r + nwarps < n)
					t_next = target[r + nwarps];
			}
			// ---- softmax: max, e = expf(x - max), s = sum e, p = e * (1 / s) ----
			float m4[4] = { NEG_INF, NEG_INF, NEG_INF, NEG_INF };
#pragma unroll
			for (int i = 0; i < MAXV; i++)
				m4[i % 4] = fmaxf(m4[i % 4], v[i]);
			m = warp_max(fmaxf(fmaxf(m4[0], m4[1]), fmaxf(m4[2], m4[3])));
			fetch();
			float s4[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
#pragma unroll
			for (int i = 0; i < MAXV; i++) {
				v[i] = IN(i) ? expf(v[i] - m) : 0.0f;
				s4[i % 4] += v[i];
			}
			const float s = warp_sum((s4[0] + s4[1]) + (s4[2] + s4[3]));
			ls = logf(s);
			const float inv = 1.0f / s;
#pragma unroll
			for (int i = 0; i < 4; i++)
				s4[i] = 0.0f;
#pragma unroll
			for (int i = 0; i < MAXV; i++) {
				v[i] = IN(i) ? __fmul_rn(v[i], inv) : 0.0f;
				s4[i % 4] += v[i];
			}
			// ---- layer norm: two-pass mean / biased variance ----
			const float mean = warp_sum((s4[0] + s4[1]) + (s4[2] + s4[3])) / (float)c;
#pragma unroll
			for (int i = 0; i < 4; i++)
				s4[i] = 0.0f;
#pragma unroll
			for (int i = 0; i < MAXV; i++) {
				const float d = IN(i) ? v[i] - mean : 0.0f;
				s4[i % 4] = fmaf(d, d, s4[i % 4]);
			}
			const float var = warp_sum((s4[0] + s4[1]) + (s4[2] + s4[3])) / (float)c;
			const float rstd = 1.0f / sqrtf(var + eps);
			if (vec) {
				float4 *o4 = (float4 *)orow;
				const long long c4 = c / 4;
#pragma unroll
				for (int i = 0; i < MAXV / 4; i++) {
					const long long qi = lane + 32 * i;
					if (qi < c4)
						o4[qi] = make_float4(__fmul_rn(__fsub_rn(v[4 * i + 0], mean), rstd),
								     __fmul_rn(__fsub_rn(v[4 * i + 1], mean), rstd),
								     __fmul_rn(__fsub_rn(v[4 * i + 2], mean), rstd),
								     __fmul_rn(__fsub_rn(v[4 * i + 3], mean), rstd));
				}
			} else {
#pragma unroll
				for (int i = 0; i < MAXV; i++)
					if (IN(i))
						orow[lane + 32 * i] = __fmul_rn(__fsub_rn(v[i], mean), rstd);
			}
#undef IN
		} else {
			// ---- long rows: the same computation, re-reading the row from global memory ----
			if (r + nwarps < n)
				t_next = target[r + nwarps];
			m = NEG_INF;
			for (long long j = lane; j < c; j += 32)
				m = fmaxf(m, xr[j]);
			m = warp_max(m);
			fetch();
			float s = 0.0f;
			for (long long j = lane; j < c; j += 32)
				s += expf(xr[j] - m);
			s = warp_sum(s);
			ls = logf(s);
			const float inv = 1.0f / s;
			double sp = 0.0;
			for (long long j = lane; j < c; j += 32)
				sp += (double)__fmul_rn(expf(xr[j] - m), inv);
			const float mean = (float)(warp_sum_d(sp) / (double)c);
			double q = 0.0;
			for (long long j = lane; j < c; j += 32) {
				const double d = (double)__fmul_rn(expf(xr[j] - m), inv) - (double)mean;
				q += d * d;
			}
			const double var = warp_sum_d(q) / (double)c;
			const float rstd = (float)(1.0 / sqrt(var + (double)eps));
			for (long long j = lane; j < c; j += 32)
				orow[j] = __fmul_rn(__fsub_rn(__fmul_rn(expf(xr[j] - m), inv), mean), rstd);
		}
		// ---- the row's cross-entropy terms (the reference's expressions) ----
		double sm = 0.0;
		if (label_smoothing > 0.0f && keep) {
			for (long long j = lane; j < c; j += 32)
				sm += (double)__fmul_rn((xr[j] - m) - ls, weight[j]);
			sm = warp_sum_d(sm);
		}
		if (lane == 0) {
			const float nll = keep ? -__fmul_rn(wt, (xt - m) - ls) : 0.0f;
			const float smooth = (float)(-sm);
			if (reduction == 0) {
				const double ds = (double)label_smoothing;
				loss[r] = ds > 0.0 ? (float)((1.0 - ds) * nll + smooth * (ds / (double)c)) : nll;
			} else {
				acc_nll += (double)nll;
				acc_w += (double)wt;
				acc_s += (double)smooth;
			}
		}
		t = t_next;
	}
	// ---- the block's partial sums (fixed order: deterministic) ----
	if (lane == 0) {
		wpart[0][warp] = acc_nll;
		wpart[1][warp] = acc_w;
		wpart[2][warp] = acc_s;
	}
	__syncthreads();
	if (threadIdx.x < 3) {
		double a = 0.0;
		for (int w = 0; w < 4; w++)
			a += wpart[threadIdx.x][w];
		part[3 * (long long)blockIdx.x + threadIdx.x] = a;
	}
}

// 'mean' / 'sum': loss[0] from the per-block partials (one block, fixed order). 'none': nothing.
extern "C" __global__ void __launch_bounds__(256)
ce_reduce(const double *__restrict__ part, float *__restrict__ loss, long long nparts, long long c, int reduction,
	  float label_smoothing)
{
	__shared__ double sh[3][256];
	if (reduction == 0)
		return;
	double a = 0.0, b = 0.0, d = 0.0;
	for (long long i = threadIdx.x; i < nparts; i += 256) {
		a += part[3 * i];
		b += part[3 * i + 1];
		d += part[3 * i + 2];
	}
	sh[0][threadIdx.x] = a;
	sh[1][threadIdx.x] = b;
	sh[2][threadIdx.x] = d;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h) {
			sh[0][threadIdx.x] += sh[0][threadIdx.x + h];
			sh[1][threadIdx.x] += sh[1][threadIdx.x + h];
			sh[2][threadIdx.x] += sh[2][threadIdx.x + h];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		a = sh[0][0];
		b = sh[1][0];
		d = sh[2][0];
		if (reduction == 1) { // weighted mean; all samples ignored: 0 / 0 = NaN
			a /= b;
			d /= b;
		}
		const double s = (double)label_smoothing;
		loss[0] = s > 0.0 ? (float)((1.0 - s) * a + d * (s / (double)c)) : (float)a;
	}
}
