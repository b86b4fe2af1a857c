// @kbx expect pass
// Correct alternative: a direct convolution (one thread per output) into `conv2d`, then one
// 1024-thread block per sample computes the layer-norm statistics with f32 per-thread partial sums
// and f64 only for the final combine, and applies normalisation and silu in the same block (no
// `layer_norm` buffer, no cross-block dependency: the block that owns a sample does everything).
// Slow for the 16.6M-value samples of the last perf row, but simple.
//
// @kbx scratch conv2d f32 [nb, cout, ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1), ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)]
// @kbx launch conv_direct<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 1048576)), 256>>>(x, conv_weight, conv_bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch ln_silu<<<max(1, nb), 1024>>>(conv2d, y, nb, i64(cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), eps)

extern "C" __global__ void conv_direct(const float* __restrict__ input, const float* __restrict__ weight,
                                       const float* __restrict__ bias, float* __restrict__ out, long long nb,
                                       long long cin, long long h, long long w, long long cout, long long kh,
                                       long long kw, long long stride, long long padding, long long dilation,
                                       long long groups, int has_bias)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups, total = nb * cout * oh * ow;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long ox = o % ow, oy = (o / ow) % oh, co = (o / (ow * oh)) % cout, n = o / (ow * oh * cout);
		long long g = co / cout_g;
		float acc = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++) {
				long long iy = oy * stride - padding + ky * dilation;
				if (iy < 0 || iy >= h)
					continue;
				for (long long kx = 0; kx < kw; kx++) {
					long long ix = ox * stride - padding + kx * dilation;
					if (ix >= 0 && ix < w)
						acc = fmaf(input[((n * cin + g * cin_g + ci) * h + iy) * w + ix],
						           weight[((co * cin_g + ci) * kh + ky) * kw + kx], acc);
				}
			}
		out[o] = has_bias ? acc + bias[co] : acc;
	}
}

static __device__ double sum1024(double v, double* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	double r = 0.0;
	for (int k = 0; k < 32; k++)
		r += sh[k];
	__syncthreads();
	return r;
}

extern "C" __global__ void ln_silu(const float* __restrict__ x, float* __restrict__ y, long long nb, long long S,
                                   float eps)
{
	__shared__ double sh[32];
	const long long n = blockIdx.x;
	if (n >= nb)
		return;
	const float* xs = x + n * S;
	float s = 0.0f;
	for (long long e = threadIdx.x; e < S; e += 1024)
		s += xs[e];
	const float mean = (float)(sum1024(s, sh) / (double)S);
	float q = 0.0f;
	for (long long e = threadIdx.x; e < S; e += 1024)
		q += (xs[e] - mean) * (xs[e] - mean);
	const float rstd = (float)(1.0 / sqrt(sum1024(q, sh) / (double)S + (double)eps));
	for (long long e = threadIdx.x; e < S; e += 1024) {
		float v = (xs[e] - mean) * rstd;
		y[n * S + e] = v / (1.0f + expf(-v));
	}
}
