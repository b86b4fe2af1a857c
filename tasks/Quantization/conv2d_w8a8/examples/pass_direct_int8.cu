// @kbx expect pass
// Correct alternative with other rounding details and another data flow: the input and the weights
// are quantized ahead into int8 buffers by multiplying with 127 / amax and rounding half away from
// zero (roundf), then a direct convolution (one thread per output element, weights of the block's
// output channel staged in shared memory) accumulates int8 products in int32 and dequantizes as
// acc * (sx * sw[co]) + bias. Only values within an ulp of a rounding boundary quantize
// differently, one step at most, far inside the metric.
//
// @kbx scratch x_amax f32 [1]
// @kbx scratch w_scale f32 [cout]
// @kbx scratch x_q i8 [nb, cin, h, w]
// @kbx scratch w_q i8 [cout, cin, kh, kw]
// @kbx launch tensor_amax<<<1, 1024>>>(input, i64(nb * cin * h * w), x_amax)
// @kbx launch quantize_input<<<max(1, cdiv(nb * cin * h * w, 1024)), 256>>>(input, x_amax, x_q, i64(nb * cin * h * w))
// @kbx launch quantize_weight<<<max(1, cout), 128>>>(weight, w_q, w_scale, i64(cin * kh * kw))
// @kbx launch conv_direct<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 128)), max(1, cout)), 128, cin * kh * kw * 4>>>(x_q, w_q, x_amax, w_scale, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias)

static __device__ float block_amax(float a, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = a;
	__syncthreads();
	a = sh[0];
	for (int i = 1; i < (int)(blockDim.x / 32); i++)
		a = fmaxf(a, sh[i]);
	return a;
}

extern "C" __global__ void tensor_amax(const float* __restrict__ x, long long n, float* __restrict__ x_amax)
{
	__shared__ float sh[32];
	float a = 0.0f;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		a = fmaxf(a, fabsf(x[i]));
	a = block_amax(a, sh);
	if (threadIdx.x == 0)
		x_amax[0] = a;
}

static __device__ __forceinline__ signed char q8(float v, float inv)
{
	return (signed char)(int)fminf(fmaxf(roundf(v * inv), -127.0f), 127.0f);
}

// four elements per thread
extern "C" __global__ void quantize_input(const float* __restrict__ x, const float* __restrict__ x_amax,
                                          signed char* __restrict__ xq, long long n)
{
	const float a = x_amax[0];
	const float inv = a > 0.0f ? 127.0f / a : 0.0f;
	const long long base = (long long)blockIdx.x * 1024 + threadIdx.x;
	for (int r = 0; r < 4; r++) {
		const long long i = base + 256 * r;
		if (i < n)
			xq[i] = q8(x[i], inv);
	}
}

extern "C" __global__ void quantize_weight(const float* __restrict__ wt, signed char* __restrict__ wq,
                                           float* __restrict__ w_scale, long long kdim)
{
	__shared__ float sh[32];
	const long long co = blockIdx.x;
	float a = 0.0f;
	for (long long i = threadIdx.x; i < kdim; i += blockDim.x)
		a = fmaxf(a, fabsf(wt[co * kdim + i]));
	a = block_amax(a, sh);
	const float inv = a > 0.0f ? 127.0f / a : 0.0f;
	for (long long i = threadIdx.x; i < kdim; i += blockDim.x)
		wq[co * kdim + i] = q8(wt[co * kdim + i], inv);
	if (threadIdx.x == 0)
		w_scale[co] = a / 127.0f;
}

// grid.y = output channel, one thread per output pixel of that channel; the channel's quantized
// kernel (cin * kh * kw ints) sits in dynamic shared memory
extern "C" __global__ void conv_direct(const signed char* __restrict__ xq, const signed char* __restrict__ wq,
                                       const float* __restrict__ x_amax, const float* __restrict__ w_scale,
                                       const float* __restrict__ bias, float* __restrict__ y,
                                       long long nb, long long cin, long long h, long long w, long long cout,
                                       long long kh, long long kw, long long stride, long long padding, int has_bias)
{
	extern __shared__ int wk[];
	const long long co = blockIdx.y;
	const long long kdim = cin * kh * kw;
	for (long long i = threadIdx.x; i < kdim; i += blockDim.x)
		wk[i] = wq[co * kdim + i];
	__syncthreads();
	const long long ho = (h + 2 * padding - kh) / stride + 1, wo = (w + 2 * padding - kw) / stride + 1;
	const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= nb * ho * wo)
		return;
	const long long n = p / (ho * wo), oy = p / wo % ho, ox = p % wo;
	int acc = 0;
	for (long long ci = 0; ci < cin; ci++)
		for (long long ky = 0; ky < kh; ky++) {
			const long long iy = oy * stride - padding + ky;
			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				const long long ix = ox * stride - padding + kx;
				if (ix >= 0 && ix < w)
					acc += (int)xq[((n * cin + ci) * h + iy) * w + ix] * wk[(ci * kh + ky) * kw + kx];
			}
		}
	const float sx = x_amax[0] / 127.0f;
	y[(n * cout + co) * ho * wo + oy * wo + ox] = (float)acc * (sx * w_scale[co]) + (has_bias ? bias[co] : 0.0f);
}
