// @kbx expect wrong
// Mistake: dilation is used for the output size but not for the taps: the input row/column is
// oy*stride - padding + ky instead of ... + ky*dilation, so every dilated case reads the wrong
// pixels (test_case_4_dilation, depthwise_dilated).
//
// @kbx launch conv2d_no_tap_dilation<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 1048576)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)

extern "C" __global__ void conv2d_no_tap_dilation(const float* __restrict__ input, const float* __restrict__ weight,
                                         const float* __restrict__ bias, float* __restrict__ y,
                                         long long nb, long long cin, long long h, long long w,
                                         long long cout, long long kh, long long kw, long long stride,
                                         long long padding, long long dilation, long long groups,
                                         int has_bias)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long total = nb * cout * oh * ow;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long ox = o % ow, oy = (o / ow) % oh, c = (o / (ow * oh)) % cout, n = o / (ow * oh * cout);
		long long g = c / cout_g;
		const float* wc = weight + c * cin_g * kh * kw;
		const float* xg = input + (n * cin + g * cin_g) * h * w;
		float acc = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++) {
				long long iy = oy * stride - padding + ky; // BUG: ky * dilation
				if (iy < 0 || iy >= h)
					continue;
				for (long long kx = 0; kx < kw; kx++) {
					long long ix = ox * stride - padding + kx; // BUG: kx * dilation
					if (ix < 0 || ix >= w)
						continue;
					acc = fmaf(wc[(ci * kh + ky) * kw + kx], xg[(ci * h + iy) * w + ix], acc);
				}
			}
		y[o] = has_bias ? acc + bias[c] : acc;
	}
}
