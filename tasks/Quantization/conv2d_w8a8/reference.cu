// conv2d_w8a8 reference: dynamic symmetric int8 quantization, one scale for the input tensor and
// one per output channel of the weight, int32 accumulation, f32 dequantization and bias.
//   1. absmax_partial:  256 grid-stride blocks, each the max |input| of its share (two-level:
//                       warp shuffles, then shared memory) into partial[256]
//   2. quant_input:     every block reduces the 256 partial maxima (sx = max / 127) and quantizes
//                       its grid-stride share: x_q = round(input / sx) half to even, clamped to
//                       [-127, 127] (a scale of 0 gives all zeros)
//   3. quant_weight:    one block per output channel: sw[co] = max |weight[co]| / 127, w_q likewise
//   4. conv_i8:         implicit GEMM: a 64 (output pixels) x 64 (output channels) tile per block,
//                       the reduction over (ci, ky, kx) in slices of 32 staged in shared memory as
//                       packed words of 4 int8, padding read as 0; 4 x 4 int32 accumulators per
//                       thread fed by __dp4a; y = acc * sx * sw[co] (+ bias[co])
// |acc| <= 127 * 127 * cin * kh * kw: int32 holds it below 133000 reduction terms. The integer
// sums are exact; the only f32 rounding is in the scales, the quotients, the two products and the
// bias add (a few ulp; the metric thresholds only see the int8 steps).
//   5. conv_f32_exact:  (untimed, checked calls only) the exact f32 convolution into y_exact, the
//                       second target of [tolerance] exact; it reads the inputs only, after y is made
//
// @kbx scratch partial f32 [256]
// @kbx scratch x_scale f32 [1]
// @kbx scratch w_scale f32 [cout]
// @kbx scratch x_q i8 [nb, cin, h, w]
// @kbx scratch w_q i8 [cout, cin, kh, kw]
// @kbx scratch y_exact f32 [nb, cout, (h + 2 * padding - kh) / stride + 1, (w + 2 * padding - kw) / stride + 1]
// @kbx launch absmax_partial<<<256, 256>>>(input, i64(nb * cin * h * w), partial)
// @kbx launch quant_input<<<max(1, min(cdiv(nb * cin * h * w, 2048), 2048)), 256>>>(input, partial, x_q, x_scale, i64(nb * cin * h * w))
// @kbx launch quant_weight<<<max(1, cout), 256>>>(weight, w_q, w_scale, i64(cin * kh * kw))
// @kbx launch conv_i8<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 64)), max(1, cdiv(cout, 64))), 256>>>(x_q, w_q, x_scale, w_scale, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias)
// @kbx launch conv_f32_exact<<<max(1, cdiv(nb * cout * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 256)), 256>>>(input, weight, bias, y_exact, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias) untimed

#include <kbx/conv_exact.h>  // conv_f32_exact: the exact convolution (an untimed launch)

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
