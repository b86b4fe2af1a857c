// @kbx expect wrong
// Mistake: one scale for the whole weight tensor (max |weight| / 127) instead of one per output
// channel. Still int8 with int32 accumulation, but on channel_ranges, where output channels
// alternate between kernels of magnitude ~100 and ~1, the small kernels keep only a few int8
// steps: rmse ~1.2 against the per-channel reference, over the 0.1 threshold.
// The lens sees the error differ from output channel to channel: the diagnosis should say `the
// channel scales differ`.
//
// @kbx scratch amax f32 [2]
// @kbx launch two_absmax<<<2, 1024>>>(input, i64(nb * cin * h * w), weight, i64(cout * cin * kh * kw), amax)
// @kbx launch conv_q<<<max(1, cdiv(nb * cout * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 256)), 256>>>(input, weight, bias, amax, y, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias)

// block 0: max |input|, block 1: max |weight|
extern "C" __global__ void two_absmax(const float* __restrict__ x, long long nx, const float* __restrict__ wt,
                                      long long nw, float* __restrict__ amax)
{
	__shared__ float sh[32];
	const float* p = blockIdx.x == 0 ? x : wt;
	const long long n = blockIdx.x == 0 ? nx : nw;
	float a = 0.0f;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		a = fmaxf(a, fabsf(p[i]));
	for (int off = 16; off > 0; off >>= 1)
		a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int i = 1; i < (int)(blockDim.x / 32); i++)
			a = fmaxf(a, sh[i]);
		amax[blockIdx.x] = a;
	}
}

static __device__ __forceinline__ int q8(float v, float scale)
{
	return scale > 0.0f ? (int)fminf(fmaxf(rintf(v / scale), -127.0f), 127.0f) : 0;
}

extern "C" __global__ void conv_q(const float* __restrict__ x, const float* __restrict__ wt,
                                  const float* __restrict__ bias, const float* __restrict__ amax,
                                  float* __restrict__ y, long long nb, long long cin, long long h, long long w,
                                  long long cout, long long kh, long long kw, long long stride, long long padding,
                                  int has_bias)
{
	const long long ho = (h + 2 * padding - kh) / stride + 1, wo = (w + 2 * padding - kw) / stride + 1;
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nb * cout * ho * wo)
		return;
	const long long ox = i % wo, oy = i / wo % ho, co = i / (wo * ho) % cout, n = i / (wo * ho * cout);
	const float sx = amax[0] / 127.0f, sw = amax[1] / 127.0f;
	int acc = 0;
	for (long long ci = 0; ci < cin; ci++)
		for (long long ky = 0; ky < kh; ky++) {
			const long long iy = oy * stride - padding + ky;
			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				const long long ix = ox * stride - padding + kx;
				if (ix >= 0 && ix < w)
					acc += q8(x[((n * cin + ci) * h + iy) * w + ix], sx) * q8(wt[((co * cin + ci) * kh + ky) * kw + kx], sw);
			}
		}
	y[i] = (float)acc * sx * sw + (has_bias ? bias[co] : 0.0f);
}
