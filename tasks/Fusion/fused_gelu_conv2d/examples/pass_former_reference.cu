// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_gelu_conv2d reference: the two PyTorch stages, each into its own buffer.
//   stage `conv2d` (F.conv2d): conv2d = the exact convolution sum plus bias, rounded once to f32
//   stage `gelu`   (F.gelu):   y = gelu(conv2d), exact (erf) or tanh form
// Keeping `conv2d` in memory costs one extra write and read of the output: the price of a reference
// whose stages can be diffed (the convolution dominates the time).
//
// conv2d as an implicit GEMM per group g: Y_g [cout/groups, N] = W_g [cout/groups, K] @ X_g [K, N],
// K = cin/groups * kh * kw (ordered ci, ky, kx like weight), N = nb * oh * ow (ordered n, oy, ox),
// X_g the im2col of the group's input built on the fly (padding taps load 0). A 256-thread block
// computes a 32-channel x 128-pixel tile, each thread a 4 x 4 register block, k staged through
// shared memory 16 at a time. The f32 products are accumulated in f64 (exact for these sizes up to
// the last bits) and rounded once with the bias added, so `conv2d` is the correctly rounded sum: a
// candidate's f32 accumulation in any order lands within the tolerance (see task.ini). Consecutive
// threads load consecutive output pixels, hence (stride 1) consecutive input pixels: coalesced.
// gelu: elementwise grid-stride loop, PyTorch's CUDA formulas in f32 (erff / tanhf within 2 ulp).
//
// @kbx scratch conv2d f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx launch conv2d_fwd<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128)), max(1, cdiv(cout / groups, 32)), max(1, groups)), 256>>>(input, weight, bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch gelu_fwd<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 65536)), 256>>>(conv2d, y, i64(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), approximate)

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

// F.gelu on CUDA, in f32: approximate = 0: x * 0.5 * (1 + erf(x * M_SQRT1_2));
// approximate = 1: 0.5 * x * (1 + tanh(kBeta * (x + kKappa * x^3))), kBeta = sqrt(2 / pi).
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

extern "C" __global__ void __launch_bounds__(256)
gelu_fwd(const float* __restrict__ x, float* __restrict__ y, long long n, int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		y[e] = gelu_one(x[e], approximate);
}
