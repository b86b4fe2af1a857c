// @kbx expect pass
// Correct alternative: conv and relu fused in one direct kernel, one thread per output (grid-stride),
// the window summed in f32 (padding taps skipped), bias added, relu applied before the single
// store; no intermediate buffer. Slower than a tiled GEMM for many channels, fine for cin = 3.
//
// @kbx launch conv_relu<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 1048576)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)

extern "C" __global__ void conv_relu(const float* __restrict__ input, const float* __restrict__ weight,
                                     const float* __restrict__ bias, float* __restrict__ y, long long nb,
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
		for (long long ci = 0; ci < cin_g; ci++) {
			const float* xp = input + (n * cin + g * cin_g + ci) * h * w;
			const float* wp = weight + (co * cin_g + ci) * kh * kw;
			for (long long ky = 0; ky < kh; ky++) {
				long long iy = oy * stride - padding + ky * dilation;
				if (iy < 0 || iy >= h)
					continue;
				for (long long kx = 0; kx < kw; kx++) {
					long long ix = ox * stride - padding + kx * dilation;
					if (ix >= 0 && ix < w)
						acc = fmaf(xp[iy * w + ix], wp[ky * kw + kx], acc);
				}
			}
		}
		float v = has_bias ? acc + bias[co] : acc;
		y[o] = isnan(v) ? v : fmaxf(v, 0.0f);
	}
}
