// @kbx expect pass
// Correct alternative: conv and shuffle fused in one direct kernel, no intermediate buffer. Each
// thread owns one output element y[n, c, Y, X], finds the conv channel c*r*r + (Y%r)*r + (X%r) and
// pixel (Y/r, X/r) it comes from and sums that conv window directly (f32, bias added first). Fine
// for the small channel counts of this task; the weights are re-read from L1/L2 by every thread.
//
// @kbx launch conv_shuffle<<<max(1, min(cdiv(nb * (cout / (r * r)) * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * r * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1) * r, 256), 1048576)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, r)

extern "C" __global__ void conv_shuffle(const float* __restrict__ input, const float* __restrict__ weight,
                                        const float* __restrict__ bias, float* __restrict__ y, long long nb,
                                        long long cin, long long h, long long w, long long cout, long long kh,
                                        long long kw, long long stride, long long padding, long long dilation,
                                        long long groups, int has_bias, long long r)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long C = cout / (r * r), H = oh * r, W = ow * r;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long total = nb * C * H * W;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long X = o % W, Y = (o / W) % H, c = (o / (W * H)) % C, n = o / (W * H * C);
		long long co = c * r * r + (Y % r) * r + X % r, oy = Y / r, ox = X / r;
		long long g = co / cout_g;
		float acc = has_bias ? bias[co] : 0.0f;
		for (long long ci = 0; ci < cin_g; ci++) {
			const float* xp = input + ((n * cin + g * cin_g + ci) * h) * w;
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
		y[o] = acc;
	}
}
