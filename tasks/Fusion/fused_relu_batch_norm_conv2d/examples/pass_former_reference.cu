// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_relu_batch_norm_conv2d reference: the three PyTorch stages, each into its own buffer.
//   stage `conv2d`     (F.conv2d): implicit GEMM, f32 accumulation, [nb, cout, oh, ow]
//   stage `batch_norm` (F.batch_norm): bn_stats gives the per-channel mean and invstd (and updates
//                      the running statistics in training), bn_apply normalises:
//                      batch_norm = ((conv2d - mean) * invstd) * bn_weight + bn_bias
//   stage `relu`       (F.relu): y = max(batch_norm, 0), NaN kept
// Writing each stage out and reading it back costs two extra passes over the conv output: the price
// of a reference whose stages can be diffed (bn_mean / bn_invstd are diffed too if a candidate keeps
// them under these names).
//
// Statistics (training): two passes over each channel's nb * oh * ow values (mean, then the sum of
// squared deviations) in f64, a warp-shuffle + shared-memory tree per block, one block per channel:
// exact to f32 rounding for any count. invstd = 1 / sqrt(var + eps) in f64, rounded once.
// Accuracy: conv sums of R <= 36 randn products (cases) or R <= 9216 uniform(0, 1) products (perf)
// in sequential f32 fmaf chains, ~1e-6 relative at worst; the rest is a few f32 roundings.
//
// @kbx scratch conv2d f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx scratch bn_mean f32 [cout]
// @kbx scratch bn_invstd f32 [cout]
// @kbx scratch batch_norm f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx launch conv2d_igemm<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 64)), max(1, cdiv(cout / groups, 64)), max(1, groups)), 256>>>(input, weight, bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch bn_stats<<<max(1, cout), 256>>>(conv2d, running_mean, running_var, bn_mean, bn_invstd, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), training, momentum, eps)
// @kbx launch bn_apply<<<dim3(max(1, min(cdiv(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 256)), max(1, min(nb * cout, 65535))), 256>>>(conv2d, bn_mean, bn_invstd, bn_weight, bn_bias, batch_norm, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))
// @kbx launch relu<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 65536)), 256>>>(batch_norm, y, i64(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

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

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum(double v, double* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < 8 ? sh[lane] : 0.0;
		for (int o = 4; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if (lane == 0)
			sh[8] = v;
	}
	__syncthreads();
	double r = sh[8];
	__syncthreads(); // sh is reused by the next call
	return r;
}

// One block per channel. training: batch mean and biased variance (two f64 passes), running
// statistics updated with the unbiased variance; eval: the running statistics, untouched.
extern "C" __global__ void __launch_bounds__(256)
bn_stats(const float* __restrict__ x, float* __restrict__ running_mean, float* __restrict__ running_var,
         float* __restrict__ mean_c, float* __restrict__ invstd_c, long long nb, long long c, long long hw,
         int training, float momentum, float eps)
{
	__shared__ double sh[9];
	const long long ch = blockIdx.x;
	if (ch >= c)
		return;
	if (!training) {
		if (threadIdx.x == 0) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = (float)(1.0 / sqrt((double)running_var[ch] + (double)eps));
		}
		return;
	}
	const long long cnt = nb * hw;
	double s = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		long long b = i / hw, p = i - b * hw;
		s += (double)x[(b * c + ch) * hw + p];
	}
	const double mean = block_sum(s, sh) / (double)cnt;
	double q = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		long long b = i / hw, p = i - b * hw;
		double d = (double)x[(b * c + ch) * hw + p] - mean;
		q += d * d;
	}
	const double var = block_sum(q, sh) / (double)cnt; // biased: used to normalise
	if (threadIdx.x == 0) {
		float mean_f = (float)mean;
		float var_unbiased = (float)(var * (double)cnt / (double)(cnt - 1));
		mean_c[ch] = mean_f;
		invstd_c[ch] = (float)(1.0 / sqrt((double)(float)var + (double)eps));
		running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean_f;
		running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * var_unbiased;
	}
}

// blockIdx.y walks the (n, c) planes, the x threads walk a plane.
extern "C" __global__ void __launch_bounds__(256)
bn_apply(const float* __restrict__ x, const float* __restrict__ mean_c, const float* __restrict__ invstd_c,
         const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ out, long long nb,
         long long c, long long hw)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long plane = blockIdx.y; plane < nb * c; plane += gridDim.y) {
		const long long ch = plane % c;
		const float mean = mean_c[ch], invstd = invstd_c[ch], wt = weight[ch], bs = bias[ch];
		const float* xp = x + plane * hw;
		float* op = out + plane * hw;
		for (long long i = tid; i < hw; i += stride)
			op[i] = __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(xp[i], mean), invstd), wt), bs);
	}
}

// torch.relu: max(v, 0) with NaN propagated.
extern "C" __global__ void __launch_bounds__(256)
relu(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float v = x[i];
		y[i] = v > 0.0f || v != v ? v : 0.0f;
	}
}
