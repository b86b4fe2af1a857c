// @kbx expect pass
// Correct alternative in two passes, like the PyTorch function: affine_grid into a scratch grid
// [n, oh, ow, 2], with base coordinates from the direct formulas (2 j + 1) / size - 1 (no
// align_corners) and 2 j / (size - 1) - 1 instead of PyTorch's linspace, theta applied as one fma
// chain t2 + x t0 + y t1; then one thread per output element samples it (unnormalization as
// g * size / 2 + (size - 1) / 2). Coordinates differ from PyTorch's in the last bits: ~1e-5 on
// the cases' small images, ~1e-4 on the perf rows' 256 x 256 image (1.33e-4 at perf row 2 on the
// H200, over the cases' atol); the task's [tolerance.perf] covers both.
//
// @kbx scratch g f32 [n, oh, ow, 2]
// @kbx launch make_grid<<<max(1, min(cdiv(n * oh * ow, 256), sms * 32)), 256>>>(theta, g, n, oh, ow, align_corners)
// @kbx launch sample<<<max(1, min(cdiv(n * c * oh * ow, 256), sms * 64)), 256>>>(input, g, y, n, c, h, w, oh, ow, mode, padding_mode, align_corners)

__device__ float base(long long j, long long size, int align)
{
	if (size <= 1)
		return 0.0f;
	return align ? (float)(2 * j) / (float)(size - 1) - 1.0f : (float)(2 * j + 1) / (float)size - 1.0f;
}

extern "C" __global__ void make_grid(const float* __restrict__ theta, float* __restrict__ g, long long n, long long oh,
                                     long long ow, int align)
{
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n * oh * ow;
	     o += (long long)gridDim.x * blockDim.x) {
		long long b = o / (oh * ow), sp = o % (oh * ow);
		float x = base(sp % ow, ow, align), y = base(sp / ow, oh, align);
		const float* t = theta + b * 6;
		g[2 * o] = fmaf(y, t[1], fmaf(x, t[0], t[2]));
		g[2 * o + 1] = fmaf(y, t[4], fmaf(x, t[3], t[5]));
	}
}

__device__ float unnorm(float gv, long long size, int align)
{
	return align ? (gv + 1.0f) * 0.5f * (float)(size - 1) : gv * (0.5f * (float)size) + 0.5f * (float)(size - 1);
}

// padding of a pixel coordinate, then the -100 rule for non-finite / out-of-int values
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

extern "C" __global__ void sample(const float* __restrict__ input, const float* __restrict__ g, float* __restrict__ y,
                                  long long n, long long c, long long h, long long w, long long oh, long long ow,
                                  int mode, int pad, int align)
{
	const long long sp_n = oh * ow, total = n * c * sp_n;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long sp = o % sp_n, ch = (o / sp_n) % c, b = o / (sp_n * c);
		float gx = g[2 * (b * sp_n + sp)], gy = g[2 * (b * sp_n + sp) + 1];
		const float* p = input + (b * c + ch) * h * w;
		float r = 0.0f;
		if (mode == 2) {
			float ix = unnorm(gx, w, align), iy = unnorm(gy, h, align);
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
			float fx = padc(unnorm(gx, w, align), w, pad, align), fy = padc(unnorm(gy, h, align), h, pad, align);
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
