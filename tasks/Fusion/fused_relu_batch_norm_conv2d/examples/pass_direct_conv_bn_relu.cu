// @kbx expect pass
// Correct alternative: a direct convolution (the window summed in f32, 8 channels x 4 columns a thread), the
// batch statistics by a separate one-block-per-channel kernel (f32 Welford-free two-pass sums with
// an f32 block tree: ~1e-7 relative for these counts), and batch norm + relu fused in one
// elementwise pass. Keeps the reference's `conv2d`, `bn_mean` and `bn_invstd` names, so they are
// diffed; no `batch_norm` buffer.
//
// @kbx scratch conv2d f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx scratch bn_mean f32 [cout]
// @kbx scratch bn_invstd f32 [cout]
// @kbx launch conv_direct<<<max(1, min(cdiv(nb * groups * cdiv(cout / groups, 8) * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * cdiv(((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 4), 256), 1048576)), 256>>>(input, weight, bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch stats<<<max(1, cout), 512>>>(conv2d, running_mean, running_var, bn_mean, bn_invstd, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), training, momentum, eps)
// @kbx launch bn_relu<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 1048576)), 256>>>(conv2d, bn_mean, bn_invstd, bn_weight, bn_bias, y, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), i64(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

extern "C" __global__ void conv_direct(const float* __restrict__ input, const float* __restrict__ weight,
                                       const float* __restrict__ bias, float* __restrict__ out, long long nb,
                                       long long cin, long long h, long long w, long long cout, long long kh,
                                       long long kw, long long stride, long long padding, long long dilation,
                                       long long groups, int has_bias)
{
	// One thread: CB output channels (of one group) x PX neighbouring output columns of one row,
	// the sums in registers. Each output is the same f32 fmaf chain over (ci, ky, kx) as a
	// one-thread-per-output kernel, taps outside the image skipped; a loaded input serves CB
	// channels and a loaded weight PX columns.
	enum { CB = 8, PX = 4 };
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups, taps = kh * kw;
	const long long cblocks = (cout_g + CB - 1) / CB, xblocks = (ow + PX - 1) / PX;
	const long long units = nb * groups * cblocks * oh * xblocks;
	for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < units;
	     u += (long long)gridDim.x * blockDim.x) {
		long long t = u;
		const long long xb = t % xblocks;
		t /= xblocks;
		const long long oy = t % oh;
		t /= oh;
		const long long cb = t % cblocks;
		t /= cblocks;
		const long long g = t % groups, n = t / groups;
		const long long co0 = g * cout_g + cb * CB, ox0 = xb * PX;
		const int nc = (int)min((long long)CB, cout_g - cb * CB), np = (int)min((long long)PX, ow - ox0);
		float acc[CB][PX];
#pragma unroll
		for (int j = 0; j < CB; j++)
#pragma unroll
			for (int p = 0; p < PX; p++)
				acc[j][p] = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++) {
			const float* xp = input + (n * cin + g * cin_g + ci) * h * w;
			const float* wp = weight + (co0 * cin_g + ci) * taps;
			for (long long ky = 0; ky < kh; ky++) {
				const long long iy = oy * stride - padding + ky * dilation;
				if (iy < 0 || iy >= h)
					continue;
				for (long long kx = 0; kx < kw; kx++) {
					float xv[PX], wv[CB];
					bool in[PX];
#pragma unroll
					for (int p = 0; p < PX; p++) {
						const long long ix = (ox0 + p) * stride - padding + kx * dilation;
						in[p] = p < np && ix >= 0 && ix < w;
						xv[p] = in[p] ? xp[iy * w + ix] : 0.0f;
					}
#pragma unroll
					for (int j = 0; j < CB; j++)
						wv[j] = j < nc ? wp[j * cin_g * taps + ky * kw + kx] : 0.0f;
#pragma unroll
					for (int j = 0; j < CB; j++)
#pragma unroll
						for (int p = 0; p < PX; p++)
							if (in[p])
								acc[j][p] = fmaf(xv[p], wv[j], acc[j][p]);
				}
			}
		}
#pragma unroll
		for (int j = 0; j < CB; j++)
#pragma unroll
			for (int p = 0; p < PX; p++)
				if (j < nc && p < np) {
					const long long co = co0 + j;
					float v = has_bias ? acc[j][p] + bias[co] : acc[j][p];
					out[((n * cout + co) * oh + oy) * ow + ox0 + p] = v;
				}
	}
}

static __device__ float block_sum512(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = 0.0f;
	for (int i = 0; i < 16; i++)
		r += sh[i];
	__syncthreads();
	return r;
}

extern "C" __global__ void stats(const float* __restrict__ x, float* __restrict__ running_mean,
                                 float* __restrict__ running_var, float* __restrict__ mean_c,
                                 float* __restrict__ invstd_c, long long nb, long long c, long long hw, int training,
                                 float momentum, float eps)
{
	__shared__ float sh[16];
	const long long ch = blockIdx.x;
	if (ch >= c)
		return;
	if (!training) {
		if (threadIdx.x == 0) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = 1.0f / sqrtf(running_var[ch] + eps);
		}
		return;
	}
	const long long cnt = nb * hw;
	float s = 0.0f;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x)
		s += x[((i / hw) * c + ch) * hw + i % hw];
	const float mean = block_sum512(s, sh) / (float)cnt;
	float q = 0.0f;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		float d = x[((i / hw) * c + ch) * hw + i % hw] - mean;
		q += d * d;
	}
	const float var = block_sum512(q, sh) / (float)cnt;
	if (threadIdx.x == 0) {
		mean_c[ch] = mean;
		invstd_c[ch] = 1.0f / sqrtf(var + eps);
		running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean;
		running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * (var * (float)cnt / (float)(cnt - 1));
	}
}

extern "C" __global__ void bn_relu(const float* __restrict__ x, const float* __restrict__ mean_c,
                                   const float* __restrict__ invstd_c, const float* __restrict__ weight,
                                   const float* __restrict__ bias, float* __restrict__ y, long long c, long long hw,
                                   long long total)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
	     i += (long long)gridDim.x * blockDim.x) {
		long long ch = (i / hw) % c;
		float v = (x[i] - mean_c[ch]) * invstd_c[ch] * weight[ch] + bias[ch];
		y[i] = isnan(v) ? v : fmaxf(v, 0.0f);
	}
}
