// @kbx expect wrong
// Mistake: the reference's scheme (one scale for the input tensor, one per output channel of the
// weight, int8, int32 accumulation over cin * kh * kw) with another rounding mode: v / scale is
// truncated toward zero (truncf) instead of rounded to the nearest step, for the input and the
// weights alike. Every quantized value moves by less than one step, but always toward zero: about
// half of them end a whole step nearer zero than the reference's, so the int8 error is biased and
// its mean square is 1/3 of a step squared instead of 1/12. Summed over the reduction, that puts
// the output past rmse 0.1 of the reference and of the exact convolution, about twice as far from
// the exact one as the reference is, so the exact target (widened to the reference's own error)
// misses it too. A numpy model of both (exact integer sums, f32 scales and quotients; 10 seeds,
// and kbx's own seed-0 inputs): on channel_ranges rmse 4.2 to 5.0 from the reference and 3.7 to
// 4.1 from the exact convolution (the reference: 1.6 to 2.1 from it); on wide_channels_uniform,
// where every value is positive and every product shrinks, an offset of about -2 on outputs ~140:
// rmse 2.0 to 2.1 from both (the reference: 0.04); on the outlier draws 0.2 to 1.06 and 0.17 to
// 0.88 (the reference: 0.08 to 0.42); on primes and stride3_pad2_rect 0.155 to 0.19 and 0.13 to
// 0.16 (the reference: 0.055 to 0.07). The first case to fail at seed 0 is corner_stride2 (0.12
// and 0.107; the reference: 0.048). Cosine stays inside, l1_relative too except on the outlier
// draws. truncf is no rounding to the nearest either, so the source also lacks the round_to_int
// evidence; the outputs fail on their own. The partial maxima and the scales are the reference's
// and kept under its names, and so is the quantized input, so the first wrong stage reported
// should be `x_q`, each of its values at most one step from the reference's.
// The stage diff sees every x_q value that differs one step nearer zero: the diagnosis should say
// `truncation toward zero`.
//
// @kbx scratch partial f32 [256]
// @kbx scratch x_scale f32 [1]
// @kbx scratch w_scale f32 [cout]
// @kbx scratch x_q i8 [nb, cin, h, w]
// @kbx scratch w_q i8 [cout, cin, kh, kw]
// @kbx launch absmax_partial<<<256, 256>>>(input, i64(nb * cin * h * w), partial)
// @kbx launch quant_input<<<max(1, min(cdiv(nb * cin * h * w, 2048), 2048)), 256>>>(input, partial, x_q, x_scale, i64(nb * cin * h * w))
// @kbx launch quant_weight<<<max(1, cout), 256>>>(weight, w_q, w_scale, i64(cin * kh * kw))
// @kbx launch conv_i8<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 64)), max(1, cdiv(cout, 64))), 256>>>(x_q, w_q, x_scale, w_scale, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias)

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
	float q = truncf(v / scale);   /* the mistake: toward zero, not to the nearest */
	q = fminf(fmaxf(q, -127.0f), 127.0f);
	return (signed char)(int)q;
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

// One block per output channel: its cin * kh * kw weights are contiguous.
extern "C" __global__ void __launch_bounds__(256)
quant_weight(const float* __restrict__ wt, signed char* __restrict__ wq, float* __restrict__ w_scale,
             long long kdim)
{
	__shared__ float sh[8];
	const long long co = blockIdx.x;
	const float* wr = wt + co * kdim;
	float amax = 0.0f;
	for (long long i = threadIdx.x; i < kdim; i += blockDim.x)
		amax = fmaxf(amax, fabsf(wr[i]));
	const float scale = block_max(amax, sh) / 127.0f;
	if (threadIdx.x == 0)
		w_scale[co] = scale;
	for (long long i = threadIdx.x; i < kdim; i += blockDim.x)
		wq[co * kdim + i] = quantize(wr[i], scale);
}

extern "C" __global__ void __launch_bounds__(256)
conv_i8(const signed char* __restrict__ xq, const signed char* __restrict__ wq,
        const float* __restrict__ x_scale, const float* __restrict__ w_scale, const float* __restrict__ bias,
        float* __restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
        long long kh, long long kw, long long stride, long long padding, int has_bias)
{
	__shared__ int Ps[8][64]; // Ps[reduction word][output pixel]
	__shared__ int Ws[8][64]; // Ws[reduction word][output channel]
	const long long ho = (h + 2 * padding - kh) / stride + 1, wo = (w + 2 * padding - kw) / stride + 1;
	const long long npix = nb * ho * wo, khw = kh * kw, kdim = cin * khw;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long p0 = (long long)blockIdx.x * 64, co0 = (long long)blockIdx.y * 64;

	// The pixel (and output channel) this thread stages: fixed for the whole reduction.
	const int lane64 = tid % 64, word0 = tid / 64; // words word0 and word0 + 4
	const long long my_p = p0 + lane64;
	const bool p_ok = my_p < npix;
	long long n = 0, iy0 = 0, ix0 = 0;
	if (p_ok) {
		n = my_p / (ho * wo);
		const long long rem = my_p - n * ho * wo;
		const long long oy = rem / wo, ox = rem - oy * wo;
		iy0 = oy * stride - padding;
		ix0 = ox * stride - padding;
	}
	const signed char* xn = xq + n * cin * h * w;
	const int khw32 = (int)khw, kw32 = (int)kw;
	const long long my_co = co0 + lane64;
	const signed char* wr = wq + my_co * kdim;

	int acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0;

	for (long long k0 = 0; k0 < kdim; k0 += 32) {
		for (int r = 0; r < 2; r++) {
			const int wd = word0 + 4 * r;
			const long long kk = k0 + 4 * wd;
			unsigned int pw = 0;
			if (p_ok) {
				for (int e = 0; e < 4; e++) {
					// 32-bit index arithmetic: the reduction length is far below 2^31
					const int k = (int)(kk + e);
					if (k >= kdim)
						break;
					const int ci = k / khw32, rr = k - ci * khw32;
					const int ky = rr / kw32, kx = rr - ky * kw32;
					const long long iy = iy0 + ky, ix = ix0 + kx;
					if (iy >= 0 && iy < h && ix >= 0 && ix < w)
						pw |= (unsigned int)(unsigned char)xn[(ci * h + iy) * w + ix] << (8 * e);
				}
			}
			Ps[wd][lane64] = (int)pw;
			unsigned int ww = 0;
			if (my_co < cout) {
				if ((kdim & 3) == 0) {
					if (kk < kdim)
						ww = *reinterpret_cast<const unsigned int*>(wr + kk);
				} else {
					for (int e = 0; e < 4 && kk + e < kdim; e++)
						ww |= (unsigned int)(unsigned char)wr[kk + e] << (8 * e);
				}
			}
			Ws[wd][lane64] = (int)ww;
		}
		__syncthreads();
#pragma unroll
		for (int wd = 0; wd < 8; wd++) {
			int pv[4], wv[4];
			for (int j = 0; j < 4; j++)
				pv[j] = Ps[wd][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				wv[i] = Ws[wd][ty + 16 * i];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = __dp4a(wv[i], pv[j], acc[i][j]);
		}
		__syncthreads();
	}

	const float sx = x_scale[0];
	for (int i = 0; i < 4; i++) {
		const long long co = co0 + ty + 16 * i;
		if (co >= cout)
			continue;
		const float sw = w_scale[co];
		const float b = has_bias ? bias[co] : 0.0f;
		for (int j = 0; j < 4; j++) {
			const long long p = p0 + tx + 16 * j;
			if (p >= npix)
				continue;
			const long long pn = p / (ho * wo), rem = p - pn * ho * wo;
			y[(pn * cout + co) * ho * wo + rem] = (float)acc[i][j] * sx * sw + b;
		}
	}
}
