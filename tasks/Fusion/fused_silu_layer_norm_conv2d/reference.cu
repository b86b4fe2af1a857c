// fused_silu_layer_norm_conv2d reference: the three PyTorch stages, each into its own buffer.
//   stage `conv2d`     (F.conv2d):     implicit GEMM, f32 accumulation, [nb, cout, oh, ow]
//   stage `layer_norm` (F.layer_norm over [cout, oh, ow], no affine): (v - mean) * rstd per sample
//   stage `silu`       (F.silu):       y = v / (1 + exp(-v))
// Writing each stage out and reading it back costs extra passes over the conv output: the price of
// a reference whose stages can be diffed.
//
// layer_norm statistics: a sample holds S = cout * oh * ow values (16.6M at the largest perf row),
// so it is split into P = max(1, min(cdiv(S, 16384), 1024)) chunks: ln_partial gives each chunk's
// (count, mean, M2) in f64 (two passes over the chunk: its mean, then squared deviations from it),
// ln_combine merges a sample's P triples with Chan's formula in f64 and stores mean and rstd =
// 1 / sqrt(var + eps) rounded to f32, and ln_apply computes (v - mean) * rstd in f32 like PyTorch.
// Exact to f32 rounding for any S; a NaN or inf makes the sample's statistics NaN.
//
// @kbx scratch conv2d f32 [nb, cout, ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1), ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)]
// @kbx scratch layer_norm_part f64 [nb * max(1, min(cdiv(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 16384), 1024)) * 3]
// @kbx scratch layer_norm_stats f32 [nb * 2]
// @kbx scratch layer_norm f32 [nb, cout, ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1), ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)]
// @kbx launch conv2d_igemm<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 64)), max(1, cdiv(cout / groups, 64)), max(1, groups)), 256>>>(x, conv_weight, conv_bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch ln_partial<<<dim3(max(1, nb), max(1, min(cdiv(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 16384), 1024))), 256>>>(conv2d, layer_norm_part, nb, i64(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))
// @kbx launch ln_combine<<<max(1, nb), 256>>>(layer_norm_part, layer_norm_stats, nb, i64(max(1, min(cdiv(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 16384), 1024))), eps)
// @kbx launch ln_apply<<<dim3(max(1, min(cdiv(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 4096)), max(1, min(nb, 65535))), 256>>>(conv2d, layer_norm_stats, layer_norm, nb, i64(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))
// @kbx launch silu<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 65536)), 256>>>(layer_norm, y, i64(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

#define CONV_BM 64
#define CONV_BN 64
// Implicit GEMM, per group g: conv_g [cout/groups, P] = W_g [cout/groups, K] @ X_g [K, P], where
// K = cin/groups * kh * kw (ordered ci, ky, kx as in weight) and P = nb * oh * ow (ordered n, oy, ox);
// X_g is the im2col of the group's input channels, gathered on the fly (padding taps load 0).
// A 256-thread block computes a CONV_BM (channels) x CONV_BN (pixels) tile, staging k through
// shared memory CONV_BK at a time; each thread accumulates a 4 x 4 register block with a
// sequential fmaf chain over k (f32, no TF32), then adds the bias.
// Grid: x over pixel tiles, y over channel tiles of a group, z over groups.
#define CONV_BK 16
#define CONV_TX (CONV_BN / 4) // threads along pixels
#define CONV_TY (CONV_BM / 4) // threads along channels (CONV_TX * CONV_TY == 256)

extern "C" __global__ void __launch_bounds__(256)
conv2d_igemm(const float* __restrict__ input, const float* __restrict__ weight, const float* __restrict__ bias,
             float* __restrict__ out, long long nb, long long cin, long long h, long long w, long long cout,
             long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
             int has_bias)
{
	__shared__ float Ws[CONV_BK][CONV_BM + 1]; // Ws[kk][channel]
	__shared__ float Xs[CONV_BK][CONV_BN];     // Xs[kk][pixel]

	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long khw = kh * kw, K = cin_g * khw, P = oh * ow, N = nb * P;
	const int tid = threadIdx.x, tx = tid % CONV_TX, ty = tid / CONV_TX;
	const long long g = blockIdx.z;
	const long long co0 = (long long)blockIdx.y * CONV_BM, j0 = (long long)blockIdx.x * CONV_BN;
	const float* Wg = weight + g * cout_g * K;

	// CONV_BN divides 256: the im2col column this thread loads is the same in every k slice.
	const int jj = tid % CONV_BN;
	const long long jl = j0 + jj;
	const bool j_ok = jl < N;
	long long iy0 = 0, ix0 = 0;
	const float* xin = input;
	if (j_ok) {
		long long img = jl / P, rem = jl % P;
		iy0 = (rem / ow) * stride - padding;
		ix0 = (rem % ow) * stride - padding;
		xin = input + (img * cin + g * cin_g) * h * w;
	}

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < K; k0 += CONV_BK) {
		for (int idx = tid; idx < CONV_BM * CONV_BK; idx += 256) { // consecutive threads along k
			int row = idx / CONV_BK, kk = idx % CONV_BK;
			long long co = co0 + row, kg = k0 + kk;
			Ws[kk][row] = (co < cout_g && kg < K) ? Wg[co * K + kg] : 0.0f;
		}
		for (int kk = tid / CONV_BN; kk < CONV_BK; kk += 256 / CONV_BN) { // consecutive threads along pixels
			long long kg = k0 + kk;
			float v = 0.0f;
			if (j_ok && kg < K) {
				long long ci = kg / khw, t = kg % khw;
				long long iy = iy0 + (t / kw) * dilation, ix = ix0 + (t % kw) * dilation;
				if (iy >= 0 && iy < h && ix >= 0 && ix < w)
					v = xin[(ci * h + iy) * w + ix];
			}
			Xs[kk][jj] = v;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < CONV_BK; kk++) {
			float wv[4], xv[4];
			for (int i = 0; i < 4; i++)
				wv[i] = Ws[kk][ty + CONV_TY * i];
			for (int j = 0; j < 4; j++)
				xv[j] = Xs[kk][tx + CONV_TX * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(wv[i], xv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int j = 0; j < 4; j++) {
		long long jo = j0 + tx + CONV_TX * j;
		if (jo >= N)
			continue;
		long long img = jo / P, rem = jo % P;
		for (int i = 0; i < 4; i++) {
			long long co = co0 + ty + CONV_TY * i;
			if (co >= cout_g)
				continue;
			long long c = g * cout_g + co;
			float v = acc[i][j];
			if (has_bias)
				v += bias[c];
			out[(img * cout + c) * P + rem] = v;
		}
	}
}

struct Moments {
	double n, mean, m2;
};

// Chan et al.'s merge of two (count, mean, M2) triples.
static __device__ Moments merge(Moments a, Moments b)
{
	if (a.n == 0.0)
		return b;
	if (b.n == 0.0)
		return a;
	Moments r;
	r.n = a.n + b.n;
	const double d = b.mean - a.mean;
	r.mean = a.mean + d * (b.n / r.n);
	r.m2 = a.m2 + b.m2 + d * d * (a.n * b.n / r.n);
	return r;
}

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum(double v, double* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int k = 0; k < 8; k++)
		r += sh[k];
	__syncthreads(); // sh is reused by the next call
	return r;
}

// Block (n, p): chunk p of sample n.
extern "C" __global__ void __launch_bounds__(256)
ln_partial(const float* __restrict__ x, double* __restrict__ part, long long nb, long long S)
{
	__shared__ double sh[8];
	const long long n = blockIdx.x, chunks = gridDim.y, p = blockIdx.y;
	if (n >= nb)
		return;
	const long long chunk = (S + chunks - 1) / chunks;
	const long long e0 = min(S, p * chunk), e1 = min(S, e0 + chunk);
	const float* xs = x + n * S;
	double s = 0.0;
	for (long long e = e0 + threadIdx.x; e < e1; e += 256)
		s += (double)xs[e];
	const double cnt = (double)(e1 - e0);
	const double tot = block_sum(s, sh);
	const double mean = cnt > 0.0 ? tot / cnt : 0.0;
	double q = 0.0;
	for (long long e = e0 + threadIdx.x; e < e1; e += 256) {
		double d = (double)xs[e] - mean;
		q += d * d;
	}
	q = block_sum(q, sh);
	if (threadIdx.x == 0) {
		part[(n * chunks + p) * 3] = cnt;
		part[(n * chunks + p) * 3 + 1] = mean;
		part[(n * chunks + p) * 3 + 2] = q;
	}
}

// One block per sample: thread 0 merges the P triples in chunk order (P <= 1024).
extern "C" __global__ void __launch_bounds__(256)
ln_combine(const double* __restrict__ part, float* __restrict__ stats, long long nb, long long chunks, float eps)
{
	const long long n = blockIdx.x;
	if (n >= nb || threadIdx.x != 0)
		return;
	Moments m = { 0.0, 0.0, 0.0 };
	for (long long p = 0; p < chunks; p++) {
		const double* t = part + (n * chunks + p) * 3;
		Moments b = { t[0], t[1], t[2] };
		m = merge(m, b);
	}
	const double var = m.n > 0.0 ? m.m2 / m.n : 0.0;
	stats[n * 2] = (float)m.mean;
	stats[n * 2 + 1] = (float)(1.0 / sqrt(var + (double)eps));
}

// blockIdx.y walks the samples, the x threads walk a sample's S values.
extern "C" __global__ void __launch_bounds__(256)
ln_apply(const float* __restrict__ x, const float* __restrict__ stats, float* __restrict__ out, long long nb,
         long long S)
{
	for (long long n = blockIdx.y; n < nb; n += gridDim.y) {
		const float mean = stats[n * 2], rstd = stats[n * 2 + 1];
		for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < S; e += (long long)gridDim.x * blockDim.x)
			out[n * S + e] = __fmul_rn(__fsub_rn(x[n * S + e], mean), rstd);
	}
}

// F.silu for f32: v / (1 + exp(-v))
extern "C" __global__ void __launch_bounds__(256)
silu(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		const float v = x[i];
		y[i] = v / (1.0f + expf(-v));
	}
}
