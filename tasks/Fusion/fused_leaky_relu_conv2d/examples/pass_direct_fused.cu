// @kbx expect pass
// Correct alternative: a direct convolution, one thread per output element, f32 fmaf accumulation in
// the weight's order, bias added last and leaky_relu applied in registers; no intermediate buffer.
//
// @kbx launch conv_leaky_direct<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 65536)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, negative_slope)

extern "C" __global__ void conv_leaky_direct(const float* __restrict__ input, const float* __restrict__ weight,
                                             const float* __restrict__ bias, float* __restrict__ y, long long nb,
                                             long long cin, long long h, long long w, long long cout, long long kh,
                                             long long kw, long long stride, long long padding, long long dilation,
                                             long long groups, int has_bias, float negative_slope)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < nb * cout * oh * ow;
	     e += (long long)gridDim.x * blockDim.x) {
		long long ox = e % ow, t = e / ow, oy = t % oh;
		t /= oh;
		long long co = t % cout, n = t / cout, g = co / cout_g;
		float acc = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++) {
				long long iy = oy * stride - padding + ky * dilation;
				for (long long kx = 0; kx < kw; kx++) {
					long long ix = ox * stride - padding + kx * dilation;
					if (iy >= 0 && iy < h && ix >= 0 && ix < w)
						acc = fmaf(input[((n * cin + g * cin_g + ci) * h + iy) * w + ix],
						           weight[((co * cin_g + ci) * kh + ky) * kw + kx], acc);
				}
			}
		if (has_bias)
			acc += bias[co];
		y[e] = acc > 0.0f ? acc : acc * negative_slope;
	}
}
