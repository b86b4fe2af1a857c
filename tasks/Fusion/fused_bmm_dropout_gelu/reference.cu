// Fusion/fused_bmm_dropout_gelu: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Faster version: the product on the f64 tensor cores (DMMA, exact f32 x f32 products, f64 sums),
// with dropout and GELU applied to the accumulators: one kernel, one store of y, no intermediates.
//
// What the reference does, and why it is slow at the perf sizes (b = 32, n = m = p = 256 .. 2432):
// bmm_tiled accumulates in f64 on the CUDA cores (f64 FMA is half the f32 rate) with 64 x 64 tiles,
// 4 x 4 outputs per thread and two barriers per 16-wide k slice, then dropout_fwd and gelu_fwd make
// two more passes over the [b, n, p] result (the scratch `bmm` and `dropout`). Measured on an H200
// (kbx sweep, 2026-12-01): 411.1 ms summed over the perf rows, PyTorch (cuBLAS f32 SGEMM) 103.9 ms;
// 11.85 TFLOP/s at N = 2432 (2 * 32 * 2432^3 = 920.6 GFLOP: ~78 ms).
//
// Why not an f32 SIMT GEMM (examples/pass_fast_sgemm_rows.cu of fused_bmm_rmsnorm_gelu_dropout):
// kbx checks every perf row too, and here nothing normalises the product: z ~ N(0, m) (sd ~49 at
// m = 2432), dropout doubles it, and tolerance is 1e-5 + 1e-5 |y|. An f32 sum of 2432 terms (even
// in chunks of 32) is off by ~1e-5 rms: a numpy model (not kept) of that two-level f32 sum, scale
// 2 and erf-GELU fails 0.2% of the kept elements (worst 2.5 x the budget, on |y| ~ 1), i.e. ~2e5
// failures at N = 2432. f64 accumulation is needed, and H200's DMMA units run it at ~67 TFLOP/s.
//
// What this kernel does: 128 x 128 output tile per 256-thread block (blockIdx.z = batch), 8 warps
// as 2 x 4, each a 64 x 32 tile of 8 x 4 m8n8k4 f64 fragments (64 f64 accumulators per thread,
// 201 registers, no spills; one block per SM). k in slices of 16 through two shared-memory stages
// of f64 (the f32 inputs converted once when stored; row strides 20 and 132 doubles, = 4 mod 16,
// make the fragment loads bank-conflict-free), the next slice prefetched into registers during the
// products (one barrier per slice). Global tiles use float4 loads when m (input1) / p (input2) is a
// multiple of 4 and the pointer is 16-byte aligned, guarded scalar loads otherwise; out-of-range
// elements load as 0 on both sides of k, so any b, n, m, p works (m = 0: zeros, b = 0: nothing).
// Epilogue per accumulator: (float) of the f64 sum (the reference's `bmm` value), the reference's
// dropout (keep iff kbx_uniform(seed, e) >= p on the flat index e = (z n + row) p + col, then
// __fmul_rn(__fmul_rn(v, mask), scale) with the same f32 keep / scale: a dropped inf or NaN gives
// NaN) and its GELU expressions copied verbatim; float2 stores when p is even. The mma is inline
// PTX (mma.sync.aligned.m8n8k4.row.col.f64), hence kbx's inline_asm note.
//
// Tolerance: the products of f32 inputs are exact in f64 and the sums are f64 as in the reference,
// only in another order (~1e-16 relative), so the f32-rounded product equals the reference's
// except at near-ties (then 1 ulp); dropout and GELU are the same f32 operations. IEEE f64 handles
// NaN / inf as the reference's FMA chain (a NaN or an inf - inf gives NaN, inf stays inf).
// Checked against a numpy emulation (not kept) of this kernel (the global -> shared load / store
// mapping with padding, each lane's fragment loads, the m8n8k4 fragment semantics, the epilogue's
// lane -> (row, col) mapping and a Python port of kbx's Philox) and of the reference, on every case
// of task.ini plus 2 x 131 x 67 x 135 and 1 x 200 x 129 x 260 (training, both GELU forms):
// bit-identical everywhere, NaN / inf included, every output written exactly once. The DMMA
// fragment layout is the one the PTX ISA documents for m8n8k4 .f64 (A[g][t], B[t][g], D[g][2t..]);
// Checked on an H200 (2026-12-03), swapped in on a copy of the catalogue
// (bench/h200_steps.sh X): tools/crosscheck.py against PyTorch, 6/6 outputs pass (max err 1.5e-05);
// tests/gpu/check_task.sh: this kernel, the former reference and every example give their
// announced verdicts..
//
// Expected at N = 2432: DMMA peak ~67 TFLOP/s; with one 8-warp block per SM, 32 independent mma per
// warp per 4-wide k step and 48 B/clk of shared-memory fragment traffic (of 128), ~50-65% of peak,
// i.e. ~35-45 TFLOP/s: ~21-26 ms against the reference's ~78 ms (~3-3.5x), the epilogue (Philox and
// erf for 1.9e8 elements, ~0.7 GB written) well under 1 ms. Perf sum ~110-130 ms against 411 ms,
// close to PyTorch's f32 SGEMM (103.9 ms) while accurate at every perf row.
//
// @kbx launch bmm_dmma_dropout_gelu<<<dim3(max(1, cdiv(p, 128)), max(1, cdiv(n, 128)), max(1, b)), 256, 74752>>>(input1, input2, y, b, n, m, p, dropout_p, training, approximate, seed)

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

// y[z] = gelu(dropout(a[z] @ bb[z])): a [nb, n, m], bb [nb, m, p], y [nb, n, p], all contiguous.
// Block: a 128 x 128 tile of y[z] (z = blockIdx.z), 8 warps as 2 (rows) x 4 (columns), each warp a
// 64 x 32 tile = 8 x 4 fragments of 8 x 8, accumulated in f64.
extern "C" __global__ void __launch_bounds__(256, 1)
bmm_dmma_dropout_gelu(const float *__restrict__ a, const float *__restrict__ bb, float *__restrict__ y, long long nb,
		      long long n, long long m, long long p, float dp, int training, int approximate, long long seed)
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

	// This thread's two float4 of each tile: A rows ar[u] = f / 4, k 4 (f % 4) ..; B k rows
	// bk[u] = f / 32, columns 4 (f % 32) .., with f = tid + 256 u.
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

	// epilogue: round the product to f32 (as the reference's `bmm`), dropout, GELU, one store
	const bool active = training && dp > 0.0f;
	const float keep = (float)(1.0 - (double)dp);
	const float scale = dp < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	const bool pair = (p & 1) == 0 && (reinterpret_cast<unsigned long long>(y) & 7) == 0;
#pragma unroll
	for (int i = 0; i < 8; i++) {
		const long long gr = row0 + wm * 64 + i * 8 + g;
		if (gr >= n)
			continue;
		float *yrow = y + (z * n + gr) * p;
		const unsigned long long erow = (unsigned long long)((z * n + gr) * p);
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const long long gc = col0 + wn * 32 + j * 8 + 2 * t;
			float o[2];
#pragma unroll
			for (int h = 0; h < 2; h++) {
				float v = (float)acc[i][j][h];
				if (active) {
					const float mask = kbx_uniform((unsigned long long)seed, erow + (unsigned long long)(gc + h)) >= dp ? 1.0f : 0.0f;
					v = __fmul_rn(__fmul_rn(v, mask), scale);
				}
				o[h] = gelu_one(v, approximate);
			}
			if (pair && gc + 1 < p) {
				*reinterpret_cast<float2 *>(yrow + gc) = make_float2(o[0], o[1]);
			} else {
				if (gc < p)
					yrow[gc] = o[0];
				if (gc + 1 < p)
					yrow[gc + 1] = o[1];
			}
		}
	}
}
