// Fusion/fused_mul_add_logsoftmax_dropout_bmm: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Faster version: mul, add, log_softmax (f64 statistics) and dropout fused into one pass that writes
// the dropped-out log-probabilities once, then the product on the f64 tensor cores (DMMA, exact
// f32 x f32 products, f64 sums, rounded once to f32 as the reference's bmm). Two kernels instead
// of the reference's six.
//
// What the reference does, and why it is slow at the perf sizes (b = 32, m = n = q = 640 .. 2432):
// bmm_nn accumulates in f64 on the CUDA cores (f64 FMA is half the f32 rate) with 64 x 64 tiles,
// 4 x 4 outputs per thread, one shared buffer, two barriers per 16-wide k slice and no prefetch:
// ~11 TFLOP/s, ~347 ms summed over the perf rows (PyTorch, f32 SGEMM: ~112 ms). Before it,
// mul_fwd, add_bcast, lsm_stats, lsm_apply and dropout_fwd make five passes over [b, m, n] through
// the scratch `mul`, `add`, `log_softmax` and `dropout` (and f64 line statistics), minor next to
// the product.
//
// What this version does:
//  - lsm_dropout_lines: the log_softmax lines on the reference's view [outer, len, inner]
//    (dim = 2: [b m, n, 1]; dim = 1: [b, m, n]). Each element's value is formed where it is used,
//    x = __fadd_rn(__fmul_rn(input1, input2), other[z sb + i sm + j]) (the reference's mul_fwd and
//    add_bcast: two f32 roundings, no contraction; other's strides sb = ob == 1 ? 0 : om n,
//    sm = om == 1 ? 0 : n). The statistics are the reference's lsm_stats step for step, so the
//    f64 max and sum of exponentials come out bit-identical: inner == 1 (every dim = 2 line, and
//    dim = 1 when n = 1, as the reference branches on inner, not on dim): one 256-thread block per
//    line, each thread's NaN-propagating max and then sum of exp((double)x - max) over
//    e = tid, tid + 256, ..., both reduced by the same shared-memory tree (s = 128 .. 1); the
//    line's x stay in registers (10 per thread, lines up to 2560; longer lines re-form x from
//    global memory in the same order). inner > 1: 32 lines per block (lane = line, 8 warps along
//    the line), per-thread values over e = warp, warp + 8, ..., the max over the 8 warps in warp
//    order, warp 0 adding the 7 other partial sums in warp order, as the reference. logsum =
//    log(sum) in f64; then per element the reference's lsm_apply, (float)(((double)x - max) -
//    logsum), and its dropout_fwd (keep iff kbx_uniform(seed, e) >= p, e the flat index of
//    [b, m, n]; __fmul_rn(__fmul_rn(v, mask), scale) with keep = (float)(1 - (double)p),
//    scale = (float)(1 / (double)keep), 0 for p = 1; training = 0 or p = 0: no dropout), written
//    once to the scratch `dropout` (the reference's stage of that name, same values).
//  - bmm_dmma_f64 (the GEMM of tasks/Fusion/fused_bmm_dropout_gelu/examples/pass_fast_dmma_f64.cu,
//    which passed every case and perf row on an H200, with a plain epilogue), called with its
//    (n, m, p) = this task's (m, n, q): a 128 x 128 tile of y per 256-thread block (blockIdx.z =
//    batch), 8 warps as 2 x 4, each warp a 64 x 32 tile of 8 x 4 mma.sync.m8n8k4 f64 fragments
//    (64 f64 accumulators per thread; one block per SM). k in slices of 16 through two
//    shared-memory stages of f64 (the f32 inputs converted once when stored; row strides 20 and
//    132 doubles, = 4 mod 16, keep the fragment loads free of bank conflicts), the next slice
//    prefetched into registers during the products (one barrier per slice). Global tiles use
//    float4 loads when the row length is a multiple of 4 and the pointer 16-byte aligned, guarded
//    scalar loads otherwise; out-of-range elements load as 0 on both sides of k, so any b, m, n, q
//    works (b = 0: nothing). Epilogue: (float) of each f64 accumulator, float2 stores when q is even.
//
// Why it is correct, formula by formula:
//  - mul, add, log_softmax statistics and apply, dropout: the reference's f32 / f64 operations in
//    the reference's order (reductions included), so `dropout` is bit-identical to the reference's
//    stage of that name, NaN / inf included (a NaN line stays NaN; -inf in other gives -inf, and
//    -inf * 0 = NaN where dropped).
//  - bmm: products of f32 values are exact in f64 (24 + 24 bits < 53) and the sums are f64 as in
//    the reference. If the DMMA unit adds its 4 products one after another (as FMA), the order is
//    the reference's exactly (k ascending; the zero padding adds +0 terms, as the reference's) and
//    y is bit-identical; in any other order the f64 sums differ by ~1e-16 of the sum of |terms|, so
//    the f32 rounding of y differs at most at near-ties (1 ulp, ~6e-8 relative), far below
//    rtol = 1e-5 and atol = 5e-5 (and [tolerance.perf]). IEEE f64 handles NaN / inf as the
//    reference's FMA chain (NaN, inf - inf -> NaN; inf stays inf).
// Checked against a numpy emulation (in /tmp, not kept) of this kernel (the line pass with its own
// indexing and reductions, the GEMM's global -> shared mapping with the paddings, float4 and
// scalar load paths, each lane's fragment loads, the m8n8k4 f64 fragment semantics of the PTX
// ISA, the epilogue's lane -> (row, col) mapping, a Python port of kbx's Philox) and of the
// reference, on every case of task.ini (kbx's own inputs, drawn with core/inputs.c) and on
// (b, m, n, q) = (2, 9, 1, 7) dim 1 and 2, (3, 70, 33, 130) dim 1 with other (n,), (2, 131, 67,
// 135) with other (b, 1, n), (1, 3, 2700, 5) (a line longer than the register cache), (2, 200,
// 129, 260) dim 1: `dropout` and y bit-identical, NaN / inf included, every element written
// exactly once, both with the DMMA modelled as 4 sequential FMAs and as ((p0 + p1) + (p2 + p3)) +
// d. Sampled rows at perf sizes (m = n = q = 640, 1536, 2432, randn): bit-identical too; the two
// f64 orders differ by at most 2.3e-5 of an f32 ulp of y, and moving every y by 1 ulp (the worst
// a rounding flip can do) costs <= 0.012 of the tolerance (cases' and [tolerance.perf]).
//
// Expected speed (an estimate, not measured): at m = n = q = 2432 (2 * 32 * 2432^3 = 920 GFLOP)
// DMMA peak is ~67 TFLOP/s; this GEMM shape should reach ~35-45 TFLOP/s, ~21-26 ms against the
// reference's ~66 ms (347 ms over the rows' 4.83e12 FLOP is ~14 TFLOP/s). The line pass reads the
// three [b, m, n] inputs once (2.3 GB at 2432; the f64 exp of 1.9e8 elements costs less than the
// traffic) and writes `dropout` once: ~1 ms. Perf sum ~110-140 ms against ~347 ms (~2.5-3x), about
// PyTorch's ~112 ms while keeping the reference's f64 precision.
// Checked on an H200 (2026-12-03), swapped in on a copy of the catalogue
// (bench/h200_steps.sh X): tools/crosscheck.py against PyTorch, 8/8 outputs pass (max err 0.0037);
// tests/gpu/check_task.sh: this kernel, the former reference and every example give their
// announced verdicts. Before that: Compiled with NVRTC for sm_90 and ABI-checked by
// tests/corpus/test_corpus (KBX_CORPUS=full) without warnings; nvcc 13.0 / ptxas for sm_90:
// bmm_dmma_f64 201 registers, lsm_dropout_lines 80 (__launch_bounds__(256, 3); with (256) alone
// ptxas capped it at 64 and spilled 8 bytes), no spills. Numerics and index mapping checked only
// by the CPU emulation described above.
//
// @kbx scratch dropout f32 [b, m, n]
// @kbx launch lsm_dropout_lines<<<max(1, min(((dim - 1) * b * m + (2 - dim) * b) * cdiv((dim - 1) + (2 - dim) * n, 32), 1048576)), 256>>>(input1, input2, other, dropout, m, n, ob, om, i64((dim - 1) * b * m + (2 - dim) * b), i64((dim - 1) * n + (2 - dim) * m), i64((dim - 1) + (2 - dim) * n), p, training, dim, seed)
// @kbx launch bmm_dmma_f64<<<dim3(max(1, cdiv(q, 128)), max(1, cdiv(m, 128)), max(1, b)), 256, 74752>>>(dropout, mat2, y, b, m, n, q)

#include <kbx/rng.h>

#define BLOCK 256
#define CACHE 10 // x values kept in registers per thread for an inner == 1 line (len <= 2560)

// max that propagates NaN (the reference's)
static __device__ __forceinline__ double nmax(double a, double c)
{
	return (a != a || a > c) ? a : c;
}

// d = dropout(log_softmax(input1 * input2 + other)) along the reference's lines: line (o, l) of
// the view [outer, len, inner] holds the flat elements (o len + e) inner + l, e < len.
extern "C" __global__ void __launch_bounds__(BLOCK, 3)
lsm_dropout_lines(const float *__restrict__ x1, const float *__restrict__ x2, const float *__restrict__ other,
		  float *__restrict__ d, long long m, long long n, long long ob, long long om, long long outer,
		  long long len, long long inner, float p, int training, int dim, long long seed)
{
	__shared__ double sh[BLOCK];
	__shared__ double shls[32];
	const double ninf = -__longlong_as_double(0x7ff0000000000000LL);
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const long long sb = ob == 1 ? 0 : om * n, sm = om == 1 ? 0 : n; // other's strides
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	// the reference's dropout_fwd on element e of value v
	auto drop = [&](float v, long long e) {
		if (active) {
			const float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? 1.0f : 0.0f;
			v = __fmul_rn(__fmul_rn(v, mask), scale);
		}
		return v;
	};
	const long long tiles = inner == 1 ? 1 : (inner + 31) / 32;
	const long long units = outer * tiles;
	for (long long u = blockIdx.x; u < units; u += gridDim.x) {
		if (inner == 1) {
			// one line per block: flat elements ib + e; other at obase + e ostep
			const long long ib = u * len;
			long long obase, ostep;
			if (dim == 2) { // line u = (z, i) = (u / m, u % m), e = j
				obase = (u / m) * sb + (u % m) * sm;
				ostep = 1;
			} else { // dim = 1 with n = 1: line u = z, e = i, j = 0
				obase = u * sb;
				ostep = sm;
			}
			auto X = [&](long long e) {
				return __fadd_rn(__fmul_rn(x1[ib + e], x2[ib + e]), other[obase + e * ostep]);
			};
			float xr[CACHE];
			double v = ninf;
#pragma unroll
			for (int k = 0; k < CACHE; k++) {
				const long long e = tid + BLOCK * k;
				xr[k] = 0.0f;
				if (e < len) {
					xr[k] = X(e);
					v = nmax(v, (double)xr[k]);
				}
			}
			for (long long e = tid + BLOCK * CACHE; e < len; e += BLOCK)
				v = nmax(v, (double)X(e));
			sh[tid] = v;
			__syncthreads();
			for (int s = BLOCK / 2; s > 0; s >>= 1) {
				if (tid < s)
					sh[tid] = nmax(sh[tid], sh[tid + s]);
				__syncthreads();
			}
			const double mv = sh[0];
			__syncthreads();
			double s1 = 0.0;
#pragma unroll
			for (int k = 0; k < CACHE; k++)
				if (tid + BLOCK * k < len)
					s1 += exp((double)xr[k] - mv);
			for (long long e = tid + BLOCK * CACHE; e < len; e += BLOCK)
				s1 += exp((double)X(e) - mv);
			sh[tid] = s1;
			__syncthreads();
			for (int s = BLOCK / 2; s > 0; s >>= 1) {
				if (tid < s)
					sh[tid] += sh[tid + s];
				__syncthreads();
			}
			const double ls = log(sh[0]);
			__syncthreads(); // sh is rewritten by the next line
#pragma unroll
			for (int k = 0; k < CACHE; k++) {
				const long long e = tid + BLOCK * k;
				if (e < len)
					d[ib + e] = drop((float)(((double)xr[k] - mv) - ls), ib + e);
			}
			for (long long e = tid + BLOCK * CACHE; e < len; e += BLOCK)
				d[ib + e] = drop((float)(((double)X(e) - mv) - ls), ib + e);
		} else {
			// dim = 1, n > 1: 32 lines (columns l) of batch o per block, lane = line, warps along it
			const long long o = u / tiles, l = (u % tiles) * 32 + lane;
			const bool ok = l < inner;
			const long long ib = o * len * inner + l, obase = o * sb + l;
			auto X = [&](long long e) {
				const long long ie = ib + e * inner;
				return __fadd_rn(__fmul_rn(x1[ie], x2[ie]), other[obase + e * sm]);
			};
			double v = ninf;
			if (ok)
				for (long long e = warp; e < len; e += BLOCK / 32)
					v = nmax(v, (double)X(e));
			sh[tid] = v;
			__syncthreads();
			double mv = sh[lane];
			for (int w = 1; w < BLOCK / 32; w++)
				mv = nmax(mv, sh[w * 32 + lane]);
			__syncthreads();
			double s1 = 0.0;
			if (ok)
				for (long long e = warp; e < len; e += BLOCK / 32)
					s1 += exp((double)X(e) - mv);
			sh[tid] = s1;
			__syncthreads();
			if (warp == 0) {
				for (int w = 1; w < BLOCK / 32; w++)
					s1 += sh[w * 32 + lane];
				shls[lane] = log(s1);
			}
			__syncthreads();
			const double ls = shls[lane];
			if (ok)
				for (long long e = warp; e < len; e += BLOCK / 32)
					d[ib + e * inner] = drop((float)(((double)X(e) - mv) - ls), ib + e * inner);
			__syncthreads(); // sh and shls are rewritten by the next tile
		}
	}
}

#define BM 128
#define BN 128
#define BK 16
#define LDA 20  // As[row][k] in doubles: a row stride = 4 (mod 16) keeps the fragment loads conflict-free
#define LDB 132 // Bs[k][col] in doubles: likewise
#define STAGE (BM * LDA + BK * LDB) // doubles per pipeline stage (2 stages: 74752 bytes)

// D = A (8 x 4, row) * B (4 x 8, col) + D on the f64 tensor cores. Lane l = 4 g + t holds
// a = A[g][t], b = B[t][g] and d0, d1 = D[g][2 t], D[g][2 t + 1].
static __device__ __forceinline__ void dmma(double &d0, double &d1, double a, double b)
{
	asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
		     : "+d"(d0), "+d"(d1)
		     : "d"(a), "d"(b));
}

// c[z] = (float)(a[z] @ bb[z]) with f64 sums: a [nb, n, m], bb [nb, m, p], c [nb, n, p], all
// contiguous. Block: a 128 x 128 tile of c[z] (z = blockIdx.z), 8 warps as 2 (rows) x 4 (columns),
// each warp a 64 x 32 tile = 8 x 4 fragments of 8 x 8.
extern "C" __global__ void __launch_bounds__(256, 1)
bmm_dmma_f64(const float *__restrict__ a, const float *__restrict__ bb, float *__restrict__ c, long long nb,
	     long long n, long long m, long long p)
{
	extern __shared__ __align__(16) double smem[]; // [2][STAGE]: As (BM x LDA) then Bs (BK x LDB)
	const long long z = blockIdx.z;
	if (z >= nb)
		return;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm = warp >> 2, wn = warp & 3; // warp tile: rows wm * 64 .., columns wn * 32 ..
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	const float *A = a + z * n * m;
	const float *B = bb + z * m * p;
	const bool avec = (m & 3) == 0 && (reinterpret_cast<unsigned long long>(a) & 15) == 0;
	const bool bvec = (p & 3) == 0 && (reinterpret_cast<unsigned long long>(bb) & 15) == 0;
	const long long T = (m + BK - 1) / BK;

	// This thread's two float4 of each tile: A rows f / 4, k 4 (f % 4) ..; B k rows f / 32,
	// columns 4 (f % 32) .., with f = tid + 256 u.
	float4 ra[2], rb[2];
	auto load = [&](long long k0) {
#pragma unroll
		for (int u = 0; u < 2; u++) {
			const int f = tid + 256 * u;
			float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
			const long long gr = row0 + (f >> 2), gk = k0 + 4 * (f & 3);
			if (gr < n) {
				const float *q = A + gr * m + gk;
				if (avec) {
					if (gk < m)
						v = __ldg(reinterpret_cast<const float4 *>(q));
				} else {
					if (gk < m) v.x = __ldg(q);
					if (gk + 1 < m) v.y = __ldg(q + 1);
					if (gk + 2 < m) v.z = __ldg(q + 2);
					if (gk + 3 < m) v.w = __ldg(q + 3);
				}
			}
			ra[u] = v;
			v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
			const long long bkk = k0 + (f >> 5), gc = col0 + 4 * (f & 31);
			if (bkk < m) {
				const float *q = B + bkk * p + gc;
				if (bvec) {
					if (gc < p)
						v = __ldg(reinterpret_cast<const float4 *>(q));
				} else {
					if (gc < p) v.x = __ldg(q);
					if (gc + 1 < p) v.y = __ldg(q + 1);
					if (gc + 2 < p) v.z = __ldg(q + 2);
					if (gc + 3 < p) v.w = __ldg(q + 3);
				}
			}
			rb[u] = v;
		}
	};
	// f32 -> f64 is exact; each element is converted once per block
	auto store = [&](int buf) {
		double *As = smem + buf * STAGE, *Bs = As + BM * LDA;
#pragma unroll
		for (int u = 0; u < 2; u++) {
			const int f = tid + 256 * u;
			double2 *pa = reinterpret_cast<double2 *>(As + (f >> 2) * LDA + 4 * (f & 3));
			pa[0] = make_double2((double)ra[u].x, (double)ra[u].y);
			pa[1] = make_double2((double)ra[u].z, (double)ra[u].w);
			double2 *pb = reinterpret_cast<double2 *>(Bs + (f >> 5) * LDB + 4 * (f & 31));
			pb[0] = make_double2((double)rb[u].x, (double)rb[u].y);
			pb[1] = make_double2((double)rb[u].z, (double)rb[u].w);
		}
	};

	double acc[8][4][2];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 4; j++) {
			acc[i][j][0] = 0.0;
			acc[i][j][1] = 0.0;
		}

	if (T > 0) {
		load(0);
		store(0);
	}
	__syncthreads();
	for (long long kt = 0; kt < T; kt++) {
		const int buf = (int)(kt & 1);
		if (kt + 1 < T)
			load((kt + 1) * BK); // in flight during this slice's products
		const double *As = smem + buf * STAGE + (wm * 64 + g) * LDA + t;
		const double *Bs = smem + buf * STAGE + BM * LDA + t * LDB + wn * 32 + g;
#pragma unroll
		for (int kk = 0; kk < BK; kk += 4) {
			double av[8], bv[4];
#pragma unroll
			for (int i = 0; i < 8; i++)
				av[i] = As[i * 8 * LDA + kk];
#pragma unroll
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kk * LDB + j * 8];
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					dmma(acc[i][j][0], acc[i][j][1], av[i], bv[j]);
		}
		if (kt + 1 < T)
			store(buf ^ 1); // the other stage was last read before the previous barrier
		__syncthreads();
	}

	// epilogue: round each f64 sum to f32 once (the reference's `bmm` value)
	const bool pair = (p & 1) == 0 && (reinterpret_cast<unsigned long long>(c) & 7) == 0;
#pragma unroll
	for (int i = 0; i < 8; i++) {
		const long long gr = row0 + wm * 64 + i * 8 + g;
		if (gr >= n)
			continue;
		float *crow = c + (z * n + gr) * p;
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const long long gc = col0 + wn * 32 + j * 8 + 2 * t;
			const float o0 = (float)acc[i][j][0], o1 = (float)acc[i][j][1];
			if (pair && gc + 1 < p) {
				*reinterpret_cast<float2 *>(crow + gc) = make_float2(o0, o1);
			} else {
				if (gc < p)
					crow[gc] = o0;
				if (gc + 1 < p)
					crow[gc + 1] = o1;
			}
		}
	}
}

