// @kbx expect pass
// Correct alternative: relu moved into the conv (a direct convolution, one thread per output), then
// the pool writes y. relu is monotone, so max(relu(a), relu(b)) = relu(max(a, b)); a NaN survives
// both orders, and no pool window is all padding (pool_padding <= pool_k / 2), so the -inf padding
// never reaches relu. The conv buffer holds relu(conv), so it is named `conv2d_relu`, not
// `conv2d` (it would be diffed against the reference's conv2d and flagged).
//
// @kbx scratch conv2d_relu f32 [nb, cout, ((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1), ((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1)]
// @kbx launch conv_relu<<<max(1, min(cdiv(nb * cout * ((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) * ((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1), 256), 1048576)), 256>>>(input, weight, bias, conv2d_relu, nb, cin, h, w, cout, kh, kw, conv_stride, conv_padding, conv_dilation, conv_groups, has_bias)
// @kbx launch pool<<<max(1, min(cdiv(nb * cout * ((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1) * ((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1), 256), 65536)), 256>>>(conv2d_relu, y, i64(nb * cout), i64(((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1)), i64(((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1)), i64(((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1)), i64(((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1)), pool_k, pool_stride, pool_padding)

extern "C" __global__ void conv_relu(const float* __restrict__ input, const float* __restrict__ weight,
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
		float v = has_bias ? acc + bias[co] : acc;
		out[o] = isnan(v) ? v : fmaxf(v, 0.0f);
	}
}

extern "C" __global__ void pool(const float* __restrict__ x, float* __restrict__ y, long long planes, long long ih,
                                long long iw, long long ph, long long pw, long long k, long long stride, long long pad)
{
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < planes * ph * pw;
	     o += (long long)gridDim.x * blockDim.x) {
		long long px = o % pw, py = (o / pw) % ph, plane = o / (pw * ph);
		float m = 0.0f; // every window holds a real tap, and every tap is >= 0 or NaN
		bool nan = false;
		for (long long iy = max(py * stride - pad, 0LL); iy < min(py * stride - pad + k, ih); iy++)
			for (long long ix = max(px * stride - pad, 0LL); ix < min(px * stride - pad + k, iw); ix++) {
				float v = x[(plane * ih + iy) * iw + ix];
				nan |= isnan(v);
				m = fmaxf(m, v);
			}
		y[o] = nan ? __int_as_float(0x7fc00000) : m;
	}
}
