// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_mul_add_logsoftmax_dropout_bmm reference: the five PyTorch stages, each into its own buffer.
//   stage `mul`         (torch.mul):  mul = input1 * input2
//   stage `add`         (torch.add):  add = mul + other (other broadcast over size-1 dims)
//   stage `log_softmax` (F.log_softmax along dim): per-line statistics first (`log_softmax_max`,
//                       `log_softmax_logsum`, f64), then log_softmax = (add - max) - logsum
//   stage `dropout`     (F.dropout): training and p > 0: element e is kept iff kbx_uniform(seed, e) >= p
//                       and becomes v * scale, scale = 1 / (1 - p) in f32; a dropped one is v * 0
//   stage `bmm`         (torch.bmm): y = dropout @ mat2, the exact sums rounded once
// Keeping four [b, m, n] intermediates in memory costs four extra passes over them: the price of a
// reference whose stages can be diffed (the bmm dominates the time at the perf sizes).
//
// mul, add, dropout: elementwise grid-stride loops (add decomposes the index for the broadcast).
// log_softmax on the view [outer, len, inner] (dim = 2: [b m, n, 1]; dim = 1: [b, m, n]): lsm_stats
// computes per line the max and then sum exp(v - max) in f64 (inner = 1: one block per line;
// inner > 1: 32 lines per block with lane = line and 8 warps along the lines, coalesced),
// logsum = log(sum); lsm_apply writes (v - max) - logsum in f64, rounded once.
// bmm: a 256-thread block computes a 64 x 64 tile, 4 x 4 per thread, k staged through shared memory 16
// at a time (zero-filled outside the matrices); f32 products accumulated in f64, rounded once.
//
// @kbx scratch mul f32 [b, m, n]
// @kbx scratch add f32 [b, m, n]
// @kbx scratch log_softmax_max f64 [(dim - 1) * b * m + (2 - dim) * b * n]
// @kbx scratch log_softmax_logsum f64 [(dim - 1) * b * m + (2 - dim) * b * n]
// @kbx scratch log_softmax f32 [b, m, n]
// @kbx scratch dropout f32 [b, m, n]
// @kbx launch mul_fwd<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(input1, input2, mul, i64(b * m * n))
// @kbx launch add_bcast<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(mul, other, add, b, m, n, ob, om)
// @kbx launch lsm_stats<<<max(1, ((dim - 1) * b * m + (2 - dim) * b) * cdiv((dim - 1) + (2 - dim) * n, 32)), 256>>>(add, log_softmax_max, log_softmax_logsum, i64((dim - 1) * b * m + (2 - dim) * b), i64((dim - 1) * n + (2 - dim) * m), i64((dim - 1) + (2 - dim) * n))
// @kbx launch lsm_apply<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(add, log_softmax_max, log_softmax_logsum, log_softmax, i64(b * m * n), i64((dim - 1) * n + (2 - dim) * m), i64((dim - 1) + (2 - dim) * n))
// @kbx launch dropout_fwd<<<max(1, min(cdiv(b * m * n, 1024), 65536)), 256>>>(log_softmax, dropout, i64(b * m * n), p, training, seed)
// @kbx launch bmm_nn<<<dim3(max(1, cdiv(q, 64)), max(1, cdiv(m, 64)), max(1, b)), 256>>>(dropout, mat2, y, b, m, n, q)

#include <kbx/rng.h>

#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
mul_fwd(const float* __restrict__ a, const float* __restrict__ c, float* __restrict__ out, long long total)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride)
		out[e] = __fmul_rn(a[e], c[e]);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
add_bcast(const float* __restrict__ a, const float* __restrict__ other, float* __restrict__ out, long long b,
          long long m, long long n, long long ob, long long om)
{
	const long long total = b * m * n;
	const long long sb = ob == 1 ? 0 : om * n, sm = om == 1 ? 0 : n; // other's strides
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		const long long j = e % n, r = e / n, i = r % m, z = r / m;
		out[e] = __fadd_rn(a[e], other[z * sb + i * sm + j]);
	}
}

// max that propagates NaN
static __device__ __forceinline__ double nmax(double a, double c)
{
	return (a != a || a > c) ? a : c;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
lsm_stats(const float* __restrict__ x, double* __restrict__ mx, double* __restrict__ logsum, long long outer,
          long long len, long long inner)
{
	__shared__ double sh[BLOCK];
	const double ninf = -__longlong_as_double(0x7ff0000000000000LL);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (inner == 1) {
		const long long line = blockIdx.x;
		if (line >= outer)
			return;
		const float* pl = x + line * len;
		double v = ninf;
		for (long long e = threadIdx.x; e < len; e += BLOCK)
			v = nmax(v, (double)pl[e]);
		sh[threadIdx.x] = v;
		__syncthreads();
		for (int s = BLOCK / 2; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] = nmax(sh[threadIdx.x], sh[threadIdx.x + s]);
			__syncthreads();
		}
		const double mv = sh[0];
		__syncthreads();
		double s1 = 0.0;
		for (long long e = threadIdx.x; e < len; e += BLOCK)
			s1 += exp((double)pl[e] - mv);
		sh[threadIdx.x] = s1;
		__syncthreads();
		for (int s = BLOCK / 2; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] += sh[threadIdx.x + s];
			__syncthreads();
		}
		if (threadIdx.x == 0) {
			mx[line] = mv;
			logsum[line] = log(sh[0]);
		}
		return;
	}
	const long long tiles = (inner + 31) / 32;
	const long long o = blockIdx.x / tiles, l = (blockIdx.x % tiles) * 32 + lane;
	if (o >= outer)
		return;
	const bool ok = l < inner;
	const float* pl = x + o * len * inner + l;
	double v = ninf;
	if (ok)
		for (long long e = warp; e < len; e += BLOCK / 32)
			v = nmax(v, (double)pl[e * inner]);
	sh[threadIdx.x] = v;
	__syncthreads();
	double mv = sh[lane];
	for (int w = 1; w < BLOCK / 32; w++)
		mv = nmax(mv, sh[w * 32 + lane]);
	__syncthreads();
	double s1 = 0.0;
	if (ok)
		for (long long e = warp; e < len; e += BLOCK / 32)
			s1 += exp((double)pl[e * inner] - mv);
	sh[threadIdx.x] = s1;
	__syncthreads();
	if (warp == 0 && ok) {
		for (int w = 1; w < BLOCK / 32; w++)
			s1 += sh[w * 32 + lane];
		mx[o * inner + l] = mv;
		logsum[o * inner + l] = log(s1);
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
lsm_apply(const float* __restrict__ x, const double* __restrict__ mx, const double* __restrict__ logsum,
          float* __restrict__ out, long long total, long long len, long long inner)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		const long long l = e % inner, o = e / (len * inner), line = o * inner + l;
		out[e] = (float)(((double)x[e] - mx[line]) - logsum[line]);
	}
}

// F.dropout with kbx's mask: keep iff kbx_uniform(seed, e) >= p. PyTorch's kernel computes
// x * mask * scale with mask 0 or 1 (a dropped NaN or inf gives NaN); scale = 1 / keep_prob with
// keep_prob = 1 - p rounded to f32, the quotient rounded to f32. p = 1 drops everything.
extern "C" __global__ void __launch_bounds__(BLOCK)
dropout_fwd(const float* __restrict__ x, float* __restrict__ out, long long total, float p, int training,
            long long seed)
{
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		float v = x[e];
		if (active) {
			float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? 1.0f : 0.0f;
			v = __fmul_rn(__fmul_rn(v, mask), scale);
		}
		out[e] = v;
	}
}

#define BM 64
#define BN 64
#define BK 16

// c[z] = a[z] @ bb[z]: a [nb, m, n], bb [nb, n, q], c [nb, m, q], all contiguous
extern "C" __global__ void __launch_bounds__(BLOCK)
bmm_nn(const float* __restrict__ a, const float* __restrict__ bb, float* __restrict__ c, long long nb, long long m,
       long long n, long long q)
{
	__shared__ double As[BK][BM + 1]; // As[kk][row]
	__shared__ double Bs[BK][BN];     // Bs[kk][col]
	const long long z = blockIdx.z;
	if (z >= nb)
		return;
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	const float* A = a + z * m * n;
	const float* B = bb + z * n * q;
	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;
	for (long long k0 = 0; k0 < n; k0 += BK) {
		for (int r = 0; r < 4; r++) { // A tile: 64 rows x 16 k, consecutive threads along k
			int idx = tid + BLOCK * r, row = idx / BK, kk = idx % BK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < n) ? (double)A[gr * n + gk] : 0.0;
		}
		for (int r = 0; r < 4; r++) { // B tile: 16 k x 64 columns, consecutive threads along q
			int idx = tid + BLOCK * r, kk = idx / BN, col = idx % BN;
			long long gk = k0 + kk, gc = col0 + col;
			Bs[kk][col] = (gk < n && gc < q) ? (double)B[gk * q + gc] : 0.0;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			double av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kk][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fma(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc < q)
				c[(z * m + gr) * q + gc] = (float)acc[i][j];
		}
	}
}
