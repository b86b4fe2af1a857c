// @kbx expect wrong
// Mistake: skips quantization and computes the exact f32 convolution (what KernelBenchX's own
// reference computes). The source shows none of the evidence the task requires (no rounding to an
// integer grid, no clamp, no scales, no integer accumulation), so it cannot pass whatever its
// outputs. Those miss rmse 0.1 against the quantizing reference on the outlier draws and on
// channel_ranges (the int8 error itself), but they are the exact result the reference keeps in
// y_exact ([tolerance] exact), so by the numbers alone they would pass: only the evidence rejects it.
//
// @kbx launch conv_f32<<<max(1, cdiv(nb * cout * ((h + 2 * padding - kh) / stride + 1) * ((w + 2 * padding - kw) / stride + 1), 256)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, has_bias)

// one thread per output element
extern "C" __global__ void conv_f32(const float* __restrict__ x, const float* __restrict__ wt,
                                    const float* __restrict__ bias, float* __restrict__ y,
                                    long long nb, long long cin, long long h, long long w, long long cout,
                                    long long kh, long long kw, long long stride, long long padding, int has_bias)
{
	const long long ho = (h + 2 * padding - kh) / stride + 1, wo = (w + 2 * padding - kw) / stride + 1;
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nb * cout * ho * wo)
		return;
	const long long ox = i % wo, oy = i / wo % ho, co = i / (wo * ho) % cout, n = i / (wo * ho * cout);
	float total = has_bias ? bias[co] : 0.0f;
	float conv = 0.0f;
	for (long long ci = 0; ci < cin; ci++)
		for (long long ky = 0; ky < kh; ky++) {
			const long long iy = oy * stride - padding + ky;
			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				const long long ix = ox * stride - padding + kx;
				if (ix >= 0 && ix < w)
					conv = fmaf(x[((n * cin + ci) * h + iy) * w + ix], wt[((co * cin + ci) * kh + ky) * kw + kx], conv);
			}
		}
	y[i] = conv + total;
}
