// @kbx expect wrong
// Mistake: the weight scales are taken along the wrong axis, one per INPUT channel (sw[ci] = max
// |weight[:, ci, :, :]| / 127) instead of one per output channel; the input keeps its one scale,
// the int8 products are still summed in int32 (per input channel, then dequantized with its
// scale), so the scheme is consistent but the granularity is wrong. On channel_ranges, where the
// output channels alternate between kernels of magnitude ~100 and ~1, every input channel's scale
// is set by the large kernels and the small ones keep a few int8 steps: a numpy model gives rmse
// 1.30 to 1.59 against the per-output-channel reference over 10 seeds (threshold 0.1; cosine and
// l1_relative stay inside), and often rmse 0.12 to 0.19 on random_outlier_3x3_bias. The
// input stages are the reference's, and the quantized weight is kept under the reference's name
// and shape (the scales, of another shape, are not), so the first wrong stage reported should be
// `w_q`, every scratch before it being equal.
// The lens sees the error differ from output channel to channel: the diagnosis should say `the
// channel scales differ`.
//
// @kbx scratch partial f32 [256]
// @kbx scratch x_scale f32 [1]
// @kbx scratch w_scale_in f32 [cin]
// @kbx scratch x_q i8 [nb, cin, h, w]
// @kbx scratch w_q i8 [cout, cin, kh, kw]
// @kbx launch absmax_partial<<<256, 256>>>(input, i64(nb * cin * h * w), partial)
// @kbx launch quant_input<<<max(1, min(cdiv(nb * cin * h * w, 2048), 2048)), 256>>>(input, partial, x_q, x_scale, i64(nb * cin * h * w))
// @kbx launch quant_weight_in<<<max(1, cin), 256>>>(weight, w_q, w_scale_in, cout, cin, i64(kh * kw))
// @kbx launch conv_i8_in<<<max(1, cdiv(nb * cout * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 256)), 256>>>(x_q, w_q, x_scale, w_scale_in, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias)

// Max over the 256 threads of a block: warp shuffles, then the 8 warp maxima in shared memory.
static __device__ __forceinline__ float block_max(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = sh[0];
	for (int i = 1; i < 8; i++)
		v = fmaxf(v, sh[i]);
	return v;
}

static __device__ __forceinline__ signed char quantize(float v, float scale)
{
	if (!(scale > 0.0f))
		return 0;
	return (signed char)(int)fminf(fmaxf(rintf(v / scale), -127.0f), 127.0f);
}

// float4 loads over the 16-byte aligned bulk, scalar loads for the last numel % 4 elements.
extern "C" __global__ void __launch_bounds__(256)
absmax_partial(const float* __restrict__ x, long long numel, float* __restrict__ partial)
{
	__shared__ float sh[8];
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long nthreads = (long long)gridDim.x * blockDim.x;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float amax = 0.0f;
	for (long long i = tid; i < numel / 4; i += nthreads) {
		const float4 v = x4[i];
		amax = fmaxf(amax, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
	}
	for (long long i = numel / 4 * 4 + tid; i < numel; i += nthreads)
		amax = fmaxf(amax, fabsf(x[i]));
	amax = block_max(amax, sh);
	if (threadIdx.x == 0)
		partial[blockIdx.x] = amax;
}

extern "C" __global__ void __launch_bounds__(256)
quant_input(const float* __restrict__ x, const float* __restrict__ partial, signed char* __restrict__ xq,
            float* __restrict__ x_scale, long long numel)
{
	__shared__ float sh[8];
	const float scale = block_max(partial[threadIdx.x], sh) / 127.0f;
	if (blockIdx.x == 0 && threadIdx.x == 0)
		x_scale[0] = scale;
	const long long nthreads = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += nthreads)
		xq[i] = quantize(x[i], scale);
}

// One block per INPUT channel ci (the mistake): its weights are weight[co, ci, :, :] for every co,
// cout strided runs of kh * kw.
extern "C" __global__ void __launch_bounds__(256)
quant_weight_in(const float* __restrict__ wt, signed char* __restrict__ wq, float* __restrict__ w_scale_in,
                long long cout, long long cin, long long khw)
{
	__shared__ float sh[8];
	const long long ci = blockIdx.x;
	const long long count = cout * khw;
	float amax = 0.0f;
	for (long long i = threadIdx.x; i < count; i += blockDim.x) {
		const long long co = i / khw, t = i - co * khw;
		amax = fmaxf(amax, fabsf(wt[(co * cin + ci) * khw + t]));
	}
	const float scale = block_max(amax, sh) / 127.0f;
	if (threadIdx.x == 0)
		w_scale_in[ci] = scale;
	for (long long i = threadIdx.x; i < count; i += blockDim.x) {
		const long long co = i / khw, t = i - co * khw;
		const long long at = (co * cin + ci) * khw + t;
		wq[at] = quantize(wt[at], scale);
	}
}

// One thread per output element: an int32 sum per input channel, dequantized with that channel's
// weight scale, then the input scale and the bias.
extern "C" __global__ void __launch_bounds__(256)
conv_i8_in(const signed char* __restrict__ xq, const signed char* __restrict__ wq,
           const float* __restrict__ x_scale, const float* __restrict__ w_scale_in, const float* __restrict__ bias,
           float* __restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
           long long kh, long long kw, long long stride, long long padding, int has_bias)
{
	const long long ho = (h + 2 * padding - kh) / stride + 1, wo = (w + 2 * padding - kw) / stride + 1;
	const long long total = nb * cout * ho * wo;
	const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= total)
		return;
	const long long ox = idx % wo, oy = (idx / wo) % ho, co = (idx / (wo * ho)) % cout, n = idx / (wo * ho * cout);
	float sum = 0.0f;
	for (long long ci = 0; ci < cin; ci++) {
		int acc = 0;
		for (long long ky = 0; ky < kh; ky++) {
			const long long iy = oy * stride - padding + ky;
			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				const long long ix = ox * stride - padding + kx;
				if (ix < 0 || ix >= w)
					continue;
				acc += (int)xq[((n * cin + ci) * h + iy) * w + ix] * (int)wq[((co * cin + ci) * kh + ky) * kw + kx];
			}
		}
		sum += (float)acc * w_scale_in[ci];
	}
	y[idx] = sum * x_scale[0] + (has_bias ? bias[co] : 0.0f);
}
