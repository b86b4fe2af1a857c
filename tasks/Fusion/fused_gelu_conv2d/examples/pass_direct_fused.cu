// @kbx expect pass
// Correct alternative: a direct convolution, one thread per output element (n, co, oy, ox), f32
// fmaf accumulation over (ci, ky, kx) in the weight's order, bias added last, GELU applied in
// registers (no intermediate buffer). f32 summation order differs from the reference's exact sum by
// far less than the tolerance on the task's cases.
//
// @kbx launch conv_gelu_direct<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 65536)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, approximate)

extern "C" __global__ void conv_gelu_direct(const float* __restrict__ input, const float* __restrict__ weight,
                                            const float* __restrict__ bias, float* __restrict__ y, long long nb,
                                            long long cin, long long h, long long w, long long cout, long long kh,
                                            long long kw, long long stride, long long padding, long long dilation,
                                            long long groups, int has_bias, int approximate)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long total = nb * cout * oh * ow;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
	     e += (long long)gridDim.x * blockDim.x) {
		long long ox = e % ow, t = e / ow;
		long long oy = t % oh;
		t /= oh;
		long long co = t % cout, n = t / cout;
		long long g = co / cout_g;
		const float* wp = weight + co * cin_g * kh * kw;
		float acc = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++) {
			const float* xp = input + (n * cin + g * cin_g + ci) * h * w;
			for (long long ky = 0; ky < kh; ky++) {
				long long iy = oy * stride - padding + ky * dilation;
				for (long long kx = 0; kx < kw; kx++) {
					long long ix = ox * stride - padding + kx * dilation;
					float wv = wp[(ci * kh + ky) * kw + kx];
					if (iy >= 0 && iy < h && ix >= 0 && ix < w)
						acc = fmaf(xp[iy * w + ix], wv, acc);
				}
			}
		}
		if (has_bias)
			acc += bias[co];
		float r;
		if (approximate)
			r = 0.5f * acc * (1.0f + tanhf(0.7978845608f * (acc + 0.044715f * acc * acc * acc)));
		else
			r = acc * 0.5f * (1.0f + erff(acc * 0.70710678f));
		y[e] = r;
	}
}
