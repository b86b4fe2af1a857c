// Fusion/fused_bmm_rmsnorm_gelu_dropout_sub: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Faster version: the product on the f64 tensor cores (DMMA, exact f32 x f32 products, f64 sums,
// rounded once to f32 as the reference's `bmm`), then one fused row pass (rms statistics in f64,
// normalisation, GELU, dropout) writing y once. Two kernels instead of the reference's five.
//
// What the reference does, and why it is slow at the perf sizes (b = 32, n = m = p = 256 .. 2432):
// bmm_tiled accumulates f32 products in f64 on the CUDA cores (f64 FMA is half the f32 rate) with
// 64 x 64 tiles, 4 x 4 outputs per thread, one shared buffer, two barriers per 16-wide k slice and
// no prefetch: ~11 TFLOP/s, ~415 ms summed over the perf rows (PyTorch's f32 SGEMM: ~107 ms).
// rms_rstd, rms_apply, gelu_fwd and dropout_fwd then make four more passes over [b, n, p] through
// the scratch `rmsnorm`, `gelu` (and `bmm`), minor next to the product.
//
// What this version does:
//  - bmm_dmma_f64 (the GEMM of tasks/Fusion/fused_bmm_dropout_gelu/examples/pass_fast_dmma_f64.cu,
//    which passed every case and perf row on an H200, with a plain epilogue): a 128 x 128 tile of
//    the product per 256-thread block (blockIdx.z = batch), 8 warps as 2 x 4, each warp a 64 x 32
//    tile of 8 x 4 mma.sync.m8n8k4 f64 fragments (64 f64 accumulators per thread; one block per
//    SM). k in slices of 16 through two shared-memory stages of f64 (the f32 inputs converted once
//    when stored; row strides 20 and 132 doubles, = 4 mod 16, keep the fragment loads free of bank
//    conflicts), the next slice prefetched into registers during the products (one barrier per
//    slice). Global tiles use float4 loads when m (input1) / p (input2) is a multiple of 4 and the
//    pointer is 16-byte aligned, guarded scalar loads otherwise; out-of-range elements load as 0
//    on both sides of k, so any b, n, m, p works (m = 0: zeros; b = 0: nothing). Epilogue:
//    (float) of each f64 accumulator into the scratch `bmm` (float2 stores when p is even).
//  - rms_gelu_dropout: one 256-thread block per row r of [b * n, p] (grid-stride over rows):
//    the reference's rms_rstd verbatim (each thread sums (double)z^2 over j = tid, tid + 256, ...,
//    then the same warp butterfly and the same 8-warp sum), rs = (float)(1.0 / sqrt(ss / p +
//    eps)) in f64; then per element the reference's rms_apply (__fmul_rn(z, rs)), its gelu_one
//    (copied verbatim: erf form or tanh form, f32) and its dropout_fwd (keep iff
//    kbx_uniform(seed, e) >= dropout_p with e = r * p + j, the flat index of [b, n, p]; then
//    __fmul_rn(__fmul_rn(v, mask), scale) with keep = (float)(1 - (double)p), scale =
//    (float)(1 / (double)keep), 0 for p = 1; training = 0 or p = 0: no dropout), stored once.
//    The second read of the row (<= ~10 KB) hits L1 / L2. `other` is not read (the function never
//    subtracts it, see task.ini).
//
// Why it is correct, formula by formula:
//  - bmm: products of f32 inputs are exact in f64 (24 + 24 bits < 53), and the sums are f64 as in
//    the reference. If the DMMA unit adds its 4 products one after another (as FMA), the order is
//    the reference's exactly (k ascending; the zero padding adds +0 terms, as the reference's) and
//    the f32 product is bit-identical; if it adds them in another order, the f64 sums differ by
//    ~1e-16 of the sum of |terms|, so the f32 rounding differs at most at near-ties: 1 ulp of z,
//    <= 6e-8 relative, which rms_norm, GELU and dropout carry to y as ~1e-7 of |y| (<= 0.03 of
//    the tolerance, measured below).
//    IEEE f64 handles NaN / inf as the reference's FMA chain (NaN, inf - inf -> NaN; inf stays).
//  - rmsnorm: the same f64 sum of squares in the same order, the same rounding of rstd and the
//    same f32 multiply: bit-identical to the reference for a bit-identical z. A NaN row gives NaN,
//    an inf entry makes ss = inf, rstd = 0, inf * 0 = NaN, finite * 0 = 0, as the reference.
//  - GELU, dropout: the reference's f32 expressions and mask stream, same rounding points.
// Checked against a numpy emulation (in /tmp, not kept) of this kernel (global -> shared mapping
// with the paddings, float4 and scalar load paths, each lane's fragment loads, the m8n8k4 f64
// fragment semantics of the PTX ISA, the epilogue's lane -> (row, col) mapping and store paths,
// the row pass with its reduction order, a Python port of kbx's Philox) and of the reference, on
// every case of task.ini (kbx's own inputs, drawn with core/inputs.c) and on 2 x 131 x 67 x 135,
// 1 x 200 x 129 x 260, 3 x 129 x 20 x 130, 1 x 257 x 300 x 3: y bit-identical, NaN / inf
// included, every output written exactly once, both with the DMMA modelled as 4 sequential FMAs
// and as ((p0 + p1) + (p2 + p3)) + d. Sampled rows at perf sizes (N = 256, 1024, 2432, randn):
// bit-identical too; the two f64 orders differ by at most 9e-4 of an f32 ulp of z (so a rounding
// flip is rare), and moving every z by 1 ulp (the worst a flip can do) costs <= 0.03 of the
// tolerance (cases' 1e-5 and [tolerance.perf] alike).
//
// Expected speed (an estimate, not measured): at N = 2432 (2 * 32 * 2432^3 = 920 GFLOP) DMMA peak
// is ~67 TFLOP/s; this kernel shape should reach ~35-45 TFLOP/s, ~21-26 ms against the
// reference's ~80 ms; the row pass reads [b, n, p] twice (L2 the second time) and writes y once,
// ~0.5 ms at N = 2432. Over the 18 rows (4.85e12 FLOP) ~110-140 ms against ~415 ms (~3-3.8x),
// about PyTorch's ~107 ms while keeping the reference's f64 precision.
// Checked on an H200 (2026-12-03), swapped in on a copy of the catalogue
// (bench/h200_steps.sh X): tools/crosscheck.py against PyTorch, 8/8 outputs pass (max err 1.2e-06);
// tests/gpu/check_task.sh: this kernel, the former reference and every example give their
// announced verdicts. Before that: Compiled with NVRTC for sm_90 and ABI-checked by
// tests/corpus/test_corpus (KBX_CORPUS=full) without warnings; nvcc 13.0 / ptxas for sm_90:
// bmm_dmma_f64 201 registers, rms_gelu_dropout 31, no spills. Numerics and index mapping checked
// only by the CPU emulation described above.
//
// @kbx scratch bmm f32 [b, n, p]
// @kbx launch bmm_dmma_f64<<<dim3(max(1, cdiv(p, 128)), max(1, cdiv(n, 128)), max(1, b)), 256, 74752>>>(input1, input2, bmm, b, n, m, p)
// @kbx launch rms_gelu_dropout<<<max(1, min(b * n, 1048576)), 256>>>(bmm, y, i64(b * n), p, dropout_p, eps, training, approximate, seed)

#include <kbx/rng.h>

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

// Sum over the block (blockDim.x == 256); every thread gets the result (the reference's, verbatim).
static __device__ double block_sum(double v)
{
	__shared__ double sh[8];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int w = 0; w < 8; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

// F.gelu on CUDA, in f32 (the reference's expressions, verbatim).
static __device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f;
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

// y[r, :] = dropout(gelu(z[r, :] * rstd[r])): one block per row (grid-stride over rows), the
// reference's rms_rstd, rms_apply, gelu_fwd and dropout_fwd in one pass.
extern "C" __global__ void __launch_bounds__(256)
rms_gelu_dropout(const float *__restrict__ z, float *__restrict__ y, long long rows, long long p, float dp,
		 float eps, int training, int approximate, long long seed)
{
	const bool active = training && dp > 0.0f;
	const float keep = (float)(1.0 - (double)dp);
	const float scale = dp < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *zr = z + r * p;
		double ss = 0.0;
		for (long long j = threadIdx.x; j < p; j += 256) {
			double v = (double)zr[j];
			ss += v * v;
		}
		ss = block_sum(ss);
		const float rs = (float)(1.0 / sqrt(ss / (double)p + (double)eps));
		for (long long j = threadIdx.x; j < p; j += 256) {
			const long long e = r * p + j;
			float v = gelu_one(__fmul_rn(zr[j], rs), approximate);
			if (active) {
				const float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= dp ? 1.0f : 0.0f;
				v = __fmul_rn(__fmul_rn(v, mask), scale);
			}
			y[e] = v;
		}
	}
}
