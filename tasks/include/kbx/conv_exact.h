/*
 * kbx/conv_exact.h - the exact f32 convolution a quantization reference keeps for [tolerance]
 * exact (doc/task-format.md): F.conv2d(input, weight, bias, stride, padding) in NCHW with square
 * stride and zero padding, one thread per output element, f32 accumulation with fmaf over
 * (ci, ky, kx), then the bias (read only when has_bias). Launch it `untimed`, on
 * max(1, cdiv(nb * cout * ho * wo, 256)) blocks of 256 threads: it runs in checked calls only and
 * never counts in the reference's timing.
 */
#ifndef KBX_CONV_EXACT_H
#define KBX_CONV_EXACT_H

extern "C" __global__ void __launch_bounds__(256)
conv_f32_exact(const float* __restrict__ x, const float* __restrict__ wt, const float* __restrict__ bias,
	       float* __restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
	       long long kh, long long kw, long long stride, long long padding, int has_bias)
{
	const long long ho = (h + 2 * padding - kh) / stride + 1, wo = (w + 2 * padding - kw) / stride + 1;
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= nb * cout * ho * wo)
		return;
	const long long ox = i % wo, oy = i / wo % ho, co = i / (wo * ho) % cout, n = i / (wo * ho * cout);
	float conv = 0.0f;

	for (long long ci = 0; ci < cin; ci++)
		for (long long ky = 0; ky < kh; ky++) {
			const long long iy = oy * stride - padding + ky;

			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				const long long ix = ox * stride - padding + kx;

				if (ix >= 0 && ix < w)
					conv = fmaf(x[((n * cin + ci) * h + iy) * w + ix],
						    wt[((co * cin + ci) * kh + ky) * kw + kx], conv);
			}
		}
	y[i] = conv + (has_bias ? bias[co] : 0.0f);
}

#endif
