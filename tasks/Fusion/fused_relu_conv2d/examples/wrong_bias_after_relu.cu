// @kbx expect wrong
// Mistake: the fused epilogue in the wrong order: relu is applied to the raw window sum and the
// bias added afterwards, relu(conv) + bias instead of relu(conv + bias). Right without bias
// (test_case_1, the perf workload), wrong wherever has_bias = 1 (negative outputs come out as
// bias[co] instead of 0, positive ones near 0 are clipped). One kernel, no scratch: the output y
// is the first wrong buffer.
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
		float v = isnan(acc) ? acc : fmaxf(acc, 0.0f);
		y[o] = has_bias ? v + bias[co] : v; // BUG: the bias belongs inside the relu
	}
}
