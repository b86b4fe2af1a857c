// @kbx expect pass
// Correct alternative: convolution and addition fused, one thread per output element, f32 fmaf
// accumulation in (ci, ky, kx) order starting from the bias, then + alpha * other before the only
// store. No intermediate buffer and no shared memory (the filter is read through the cache).
//
// @kbx launch conv_add<<<max(1, cdiv(n * oc * ho * wo, 128)), 128>>>(input, weight, bias, other, y, n, c, h, w, oc, kh, kw, ho, wo, stride, padding, dilation, groups, on, ooc, oh, ow, alpha)

extern "C" __global__ void conv_add(const float* __restrict__ x, const float* __restrict__ wt, const float* __restrict__ bias,
                                    const float* __restrict__ other, float* __restrict__ y, long long n, long long c,
                                    long long h, long long w, long long oc, long long kh, long long kw, long long ho,
                                    long long wo, long long stride, long long pad, long long dil, long long groups,
                                    long long on, long long ooc, long long oh, long long ow, float alpha)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * oc * ho * wo)
		return;
	long long ox = i % wo, oy = (i / wo) % ho, co = (i / (wo * ho)) % oc, s = i / (wo * ho * oc);
	long long cg = c / groups, g = co / (oc / groups);
	float acc = bias[co];
	for (long long ci = 0; ci < cg; ci++)
		for (long long ky = 0; ky < kh; ky++) {
			long long iy = oy * stride - pad + ky * dil;
			if (iy < 0 || iy >= h)
				continue;
			for (long long kx = 0; kx < kw; kx++) {
				long long ix = ox * stride - pad + kx * dil;
				if (ix >= 0 && ix < w)
					acc = fmaf(x[((s * c + g * cg + ci) * h + iy) * w + ix], wt[((co * cg + ci) * kh + ky) * kw + kx], acc);
			}
		}
	long long oi = (((on == 1 ? 0 : s) * ooc + (ooc == 1 ? 0 : co)) * oh + (oh == 1 ? 0 : oy)) * ow + (ow == 1 ? 0 : ox);
	y[i] = acc + alpha * other[oi];
}
