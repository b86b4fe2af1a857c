// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_instance_norm_selu_conv2d reference: the three PyTorch stages, each into its own buffer.
//   stage `conv2d`        (F.conv2d): conv2d = the exact convolution sum plus bias, rounded once
//   stage `selu`          (F.selu):   selu = x > 0 ? x * scale : expm1(x) * (alpha * scale)
//   stage `instance_norm` (F.instance_norm): per-plane statistics first (`instance_norm_mean`,
//                         `instance_norm_invstd`, one value per (n, co) plane), then
//                         y = (selu - mean) * invstd
// Keeping `conv2d` and `selu` in memory costs two extra passes over the output: the price of a
// reference whose stages can be diffed (the convolution dominates the time).
//
// conv2d as an implicit GEMM per group g: Y_g [cout/groups, N] = W_g [cout/groups, K] @ X_g [K, N],
// K = cin/groups * kh * kw, N = nb * oh * ow, X_g the im2col built on the fly (padding taps load 0).
// A 256-thread block computes a 32-channel x 128-pixel tile (4 x 4 per thread), k staged through
// shared memory 16 at a time; products accumulated in f64 and rounded once with the bias, so
// `conv2d` is the correctly rounded sum (see task.ini for what that means for f32 candidates).
// selu: PyTorch's elu kernel in f32 (expm1f within 1 ulp). in_stats: one block per plane, f64 sums
// S1 = sum (s - s0), S2 = sum (s - s0)^2 with s0 the plane's first value (warp shuffles, then shared
// memory): mean = s0 + S1 / cnt, var = (S2 - S1^2 / cnt) / cnt (biased), invstd = 1 / sqrt(var + eps),
// exact to well below f32 precision. in_apply: blockIdx.y walks the planes, coalesced.
//
// @kbx scratch conv2d f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx scratch selu f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx scratch instance_norm_mean f32 [nb * cout]
// @kbx scratch instance_norm_invstd f32 [nb * cout]
// @kbx launch conv2d_fwd<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128)), max(1, cdiv(cout / groups, 32)), max(1, groups)), 256>>>(input, weight, bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch selu_fwd<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 65536)), 256>>>(conv2d, selu, i64(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))
// @kbx launch in_stats<<<max(1, nb * cout), 256>>>(selu, instance_norm_mean, instance_norm_invstd, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), eps)
// @kbx launch in_apply<<<dim3(max(1, min(cdiv(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 1024)), max(1, min(nb * cout, 65535))), 256>>>(selu, instance_norm_mean, instance_norm_invstd, y, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

#define CBM 32  // output channels per tile
#define CBN 128 // output pixels per tile
#define CBK 16  // k slice

extern "C" __global__ void __launch_bounds__(256)
conv2d_fwd(const float* __restrict__ input, const float* __restrict__ weight, const float* __restrict__ bias,
           float* __restrict__ out, long long nb, long long cin, long long h, long long w, long long cout,
           long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
           int has_bias)
{
	__shared__ double Ws[CBK][CBM + 1]; // Ws[kk][channel]; +1 against bank conflicts on the store
	__shared__ double Xs[CBK][CBN];     // Xs[kk][pixel]

	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long khw = kh * kw, K = cin_g * khw, P = oh * ow, N = nb * P;
	const int tid = threadIdx.x, tx = tid % 32, ty = tid / 32;
	const long long g = blockIdx.z, co0 = (long long)blockIdx.y * CBM, j0 = (long long)blockIdx.x * CBN;
	const float* Wg = weight + g * cout_g * K;

	// The im2col column this thread loads is the same for every k slice: decompose it once.
	const int jj = tid % CBN;
	const long long jl = j0 + jj;
	const bool j_ok = jl < N;
	long long iy0 = 0, ix0 = 0;
	const float* xin = input;
	if (j_ok) {
		long long nimg = jl / P, rem = jl % P;
		iy0 = (rem / ow) * stride - padding;
		ix0 = (rem % ow) * stride - padding;
		xin = input + (nimg * cin + g * cin_g) * h * w;
	}

	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;

	for (long long k0 = 0; k0 < K; k0 += CBK) {
		for (int r = 0; r < 2; r++) { // weights: 32 channels x 16 k, consecutive threads along k
			int idx = tid + 256 * r, co = idx / CBK, kk = idx % CBK;
			long long gco = co0 + co, gk = k0 + kk;
			Ws[kk][co] = (gco < cout_g && gk < K) ? (double)Wg[gco * K + gk] : 0.0;
		}
		for (int r = 0; r < 8; r++) { // im2col: 16 k x 128 pixels, consecutive threads along pixels
			int kk = tid / CBN + 2 * r;
			long long gk = k0 + kk;
			double v = 0.0;
			if (j_ok && gk < K) {
				long long ci = gk / khw, rr = gk - ci * khw, ky = rr / kw, kx = rr - ky * kw;
				long long iy = iy0 + ky * dilation, ix = ix0 + kx * dilation;
				if (iy >= 0 && iy < h && ix >= 0 && ix < w)
					v = (double)xin[(ci * h + iy) * w + ix];
			}
			Xs[kk][jj] = v;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < CBK; kk++) {
			double av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = Ws[kk][ty + 8 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Xs[kk][tx + 32 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fma(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int i = 0; i < 4; i++) {
		long long co = co0 + ty + 8 * i;
		if (co >= cout_g)
			continue;
		long long cg = g * cout_g + co;
		double b = has_bias ? (double)bias[cg] : 0.0;
		for (int j = 0; j < 4; j++) {
			long long jo = j0 + tx + 32 * j;
			if (jo < N) {
				long long nimg = jo / P, rem = jo % P;
				out[(nimg * cout + cg) * P + rem] = (float)(acc[i][j] + b);
			}
		}
	}
}

// F.selu on CUDA (elu kernel): x > 0 ? x * scale : expm1(x * 1) * (alpha * scale), in f32, with
// scale = f32(1.0507009873554805) = 0x3f867d5f and alpha * scale = f32(f32(alpha) * scale) = 0x3fe10966.
extern "C" __global__ void __launch_bounds__(256)
selu_fwd(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const float poscoef = __int_as_float(0x3f867d5f), negcoef = __int_as_float(0x3fe10966);
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		float v = x[e];
		y[e] = v > 0.0f ? __fmul_rn(v, poscoef) : __fmul_rn(expm1f(v), negcoef);
	}
}

static __device__ __forceinline__ double block_sum(double v, double* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int wi = 0; wi < 8; wi++)
		r += sh[wi];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
in_stats(const float* __restrict__ s, float* __restrict__ mean_p, float* __restrict__ invstd_p, long long planes,
         long long cnt, float eps)
{
	__shared__ double sh[8];
	const long long p = blockIdx.x;
	if (p >= planes)
		return;
	const float* xp = s + p * cnt;
	const double s0 = (double)xp[0];
	double s1 = 0.0, s2 = 0.0;
	for (long long e = threadIdx.x; e < cnt; e += 256) {
		double v = (double)xp[e] - s0;
		s1 += v;
		s2 = fma(v, v, s2);
	}
	s1 = block_sum(s1, sh);
	s2 = block_sum(s2, sh);
	if (threadIdx.x == 0) {
		double m2 = s2 - s1 * (s1 / (double)cnt);
		if (m2 < 0.0) // rounding only; keeps NaN
			m2 = 0.0;
		mean_p[p] = (float)(s0 + s1 / (double)cnt);
		invstd_p[p] = (float)(1.0 / sqrt(m2 / (double)cnt + (double)eps));
	}
}

extern "C" __global__ void __launch_bounds__(256)
in_apply(const float* __restrict__ s, const float* __restrict__ mean_p, const float* __restrict__ invstd_p,
         float* __restrict__ y, long long planes, long long cnt)
{
	for (long long p = blockIdx.y; p < planes; p += gridDim.y) {
		const float mean = mean_p[p], invstd = invstd_p[p];
		const float* xp = s + p * cnt;
		float* yp = y + p * cnt;
		for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < cnt; e += (long long)gridDim.x * blockDim.x)
			yp[e] = __fmul_rn(__fsub_rn(xp[e], mean), invstd);
	}
}
