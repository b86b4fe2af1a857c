// @kbx expect wrong
// Mistake: the base grid is linspace(-1, 1, size) whatever align_corners says. Without
// align_corners PyTorch scales it by (size - 1) / size (pixel centres of the corner pixels are at
// +-(1 - 1/size), not +-1), so every sample of the align_corners=False cases is shifted by up to
// half a pixel (test_case_1_default: ~0.5 * |input[i + 1] - input[i]| near the edges). The
// align_corners=True cases pass.
//
// @kbx launch affine_sample_noscale<<<max(1, min(cdiv(n * c * oh * ow, 256), sms * 64)), 256>>>(input, theta, y, n, c, h, w, oh, ow, mode, padding_mode, align_corners)

__device__ float padc(float x, long long size, int pad, int align)
{
	if (pad == 2) {
		float lo = align ? 0.0f : -0.5f, span = align ? (float)(size - 1) : (float)size;
		if (span <= 0.0f) {
			x = 0.0f;
		} else {
			float t = fabsf(x - lo), e = fmodf(t, span);
			x = ((int)floorf(t / span) & 1) ? span - e + lo : e + lo;
		}
	}
	if (pad >= 1)
		x = fminf(fmaxf(x, 0.0f), (float)(size - 1));
	if (!(x >= -2147483648.0f && x <= 2147483648.0f))
		x = -100.0f;
	return x;
}

__device__ void cubic_weights(float t, float c[4])
{
	const float A = -0.75f;
	float d0 = t + 1.0f, d1 = t, d2 = 1.0f - t, d3 = 2.0f - t;
	c[0] = ((A * d0 - 5.0f * A) * d0 + 8.0f * A) * d0 - 4.0f * A;
	c[1] = ((A + 2.0f) * d1 - (A + 3.0f)) * d1 * d1 + 1.0f;
	c[2] = ((A + 2.0f) * d2 - (A + 3.0f)) * d2 * d2 + 1.0f;
	c[3] = ((A * d3 - 5.0f * A) * d3 + 8.0f * A) * d3 - 4.0f * A;
}

extern "C" __global__ void affine_sample_noscale(const float* __restrict__ input, const float* __restrict__ theta,
                                                 float* __restrict__ y, long long n, long long c, long long h,
                                                 long long w, long long oh, long long ow, int mode, int pad, int align)
{
	const long long sp_n = oh * ow, total = n * c * sp_n;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long sp = o % sp_n, ch = (o / sp_n) % c, b = o / (sp_n * c);
		long long ox = sp % ow, oy = sp / ow;
		float bx = ow > 1 ? -1.0f + 2.0f * (float)ox / (float)(ow - 1) : 0.0f; // align_corners ignored
		float by = oh > 1 ? -1.0f + 2.0f * (float)oy / (float)(oh - 1) : 0.0f;
		const float* t = theta + b * 6;
		float gx = t[0] * bx + t[1] * by + t[2], gy = t[3] * bx + t[4] * by + t[5];
		float ix = align ? (gx + 1.0f) * 0.5f * (float)(w - 1) : ((gx + 1.0f) * (float)w - 1.0f) * 0.5f;
		float iy = align ? (gy + 1.0f) * 0.5f * (float)(h - 1) : ((gy + 1.0f) * (float)h - 1.0f) * 0.5f;
		const float* p = input + (b * c + ch) * h * w;
		float r = 0.0f;
		if (mode == 2) {
			float x0 = floorf(ix), y0 = floorf(iy);
			float cx[4], cy[4];
			cubic_weights(ix - x0, cx);
			cubic_weights(iy - y0, cy);
			for (int i = 0; i < 4; i++) {
				long long yi = (long long)padc(y0 - 1.0f + (float)i, h, pad, align);
				float row = 0.0f;
				for (int j = 0; j < 4; j++) {
					long long xi = (long long)padc(x0 - 1.0f + (float)j, w, pad, align);
					float v = (xi >= 0 && xi < w && yi >= 0 && yi < h) ? p[yi * w + xi] : 0.0f;
					row += v * cx[j];
				}
				r += row * cy[i];
			}
		} else {
			float fx = padc(ix, w, pad, align), fy = padc(iy, h, pad, align);
			if (mode == 1) {
				long long xi = (long long)rintf(fx), yi = (long long)rintf(fy);
				if (xi >= 0 && xi < w && yi >= 0 && yi < h)
					r = p[yi * w + xi];
			} else {
				long long x0 = (long long)floorf(fx), y0 = (long long)floorf(fy);
				for (int k = 0; k < 4; k++) {
					long long xi = x0 + (k & 1), yi = y0 + (k >> 1);
					if (xi < 0 || xi >= w || yi < 0 || yi >= h)
						continue;
					float wx = (k & 1) ? fx - (float)x0 : (float)(x0 + 1) - fx;
					float wy = (k >> 1) ? fy - (float)y0 : (float)(y0 + 1) - fy;
					r += p[yi * w + xi] * (wx * wy);
				}
			}
		}
		y[o] = r;
	}
}
