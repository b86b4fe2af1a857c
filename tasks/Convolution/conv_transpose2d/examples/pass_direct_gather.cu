// @kbx expect pass
// Correct alternative: one thread per output element (grid-stride), gathering over the group's
// input channels and all kernel taps, keeping the taps with oy + padding - ky*dilation >= 0,
// divisible by stride and landing inside the input. Slower than the class-split GEMM (and it
// tests every tap), the same f32 products in another order.
//
// @kbx launch conv_t_direct<<<max(1, min(cdiv(nb * cout * ((h - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1) * ((w - 1) * stride - 2 * padding + dilation * (kw - 1) + output_padding + 1), 256), sms * 32)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, output_padding, dilation, groups, has_bias)

extern "C" __global__ void conv_t_direct(const float* __restrict__ input, const float* __restrict__ weight,
                                         const float* __restrict__ bias, float* __restrict__ y, long long nb,
                                         long long cin, long long h, long long w, long long cout, long long kh,
                                         long long kw, long long stride, long long padding, long long output_padding,
                                         long long dilation, long long groups, int has_bias)
{
	const long long OH = (h - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1;
	const long long OW = (w - 1) * stride - 2 * padding + dilation * (kw - 1) + output_padding + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long total = nb * cout * OH * OW;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long ox = o % OW, oy = (o / OW) % OH, c = (o / (OW * OH)) % cout, img = o / (OW * OH * cout);
		long long g = c / cout_g, co = c % cout_g;
		float acc = 0.0f;
		for (long long ci = g * cin_g; ci < (g + 1) * cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++) {
				long long ny = oy + padding - ky * dilation;
				if (ny < 0 || ny % stride != 0 || ny / stride >= h)
					continue;
				for (long long kx = 0; kx < kw; kx++) {
					long long nx = ox + padding - kx * dilation;
					if (nx < 0 || nx % stride != 0 || nx / stride >= w)
						continue;
					acc = fmaf(input[((img * cin + ci) * h + ny / stride) * w + nx / stride],
					           weight[((ci * cout_g + co) * kh + ky) * kw + kx], acc);
				}
			}
		y[o] = has_bias ? acc + bias[c] : acc;
	}
}
