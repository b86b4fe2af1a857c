// @kbx expect wrong
// Mistake: without align_corners, the bilinear source index scale * (dst + 0.5) - 0.5 is not clamped at 0
// (PyTorch clamps it for bilinear, not for bicubic), so the first rows and columns of an upsampled image
// extrapolate (weights 1.25 / -0.25) instead of repeating the edge pixel.
// @kbx launch interpolate_f32<<<dim3(max(1, cdiv(oh * ow, 256)), max(1, min(n * c, 65535))), 256>>>(x, y, n, c, h, w, oh, ow, mode, align_corners, scale_h, scale_w)

/* compute_scales_value: 1 / scale_factor when one was given (> 0), else in / out, as f32 */
__device__ __forceinline__ float scales_value(double scale, long long in, long long out)
{
	return scale > 0.0 ? (float)(1.0 / scale) : (float)in / (float)out;
}

/* area_pixel_compute_scale */
__device__ __forceinline__ float pixel_scale(long long in, long long out, int align_corners, double scale)
{
	if (align_corners)
		return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
	return scales_value(scale, in, out);
}

/* area_pixel_compute_source_index */
__device__ __forceinline__ float source_index(float scale, int dst, int align_corners, bool cubic)
{
	if (align_corners)
		return scale * (float)dst;
	float src = scale * ((float)dst + 0.5f) - 0.5f;
	return src; /* BUG: bilinear needs src clamped at 0 */
}

/* cubic_convolution1 / 2 and get_cubic_upsampling_coefficients, A = -0.75 */
__device__ __forceinline__ float cubic1(float x, float A)
{
	return ((A + 2.0f) * x - (A + 3.0f)) * x * x + 1.0f;
}

__device__ __forceinline__ float cubic2(float x, float A)
{
	return ((A * x - 5.0f * A) * x + 8.0f * A) * x - 4.0f * A;
}

__device__ __forceinline__ void cubic_coeffs(float c[4], float t)
{
	const float A = -0.75f;
	c[0] = cubic2(t + 1.0f, A);
	c[1] = cubic1(t, A);
	float t2 = 1.0f - t;
	c[2] = cubic1(t2, A);
	c[3] = cubic2(t2 + 1.0f, A);
}

extern "C" __global__ void interpolate_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					   long long c, long long h, long long w, long long oh, long long ow, int mode,
					   int align_corners, double scale_h, double scale_w)
{
	long long pix = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (pix >= oh * ow)
		return;
	int ox = (int)(pix % ow);
	int oy = (int)(pix / ow);
	long long planes = n * c;
	long long in_plane = h * w, out_plane = oh * ow;

	if (h == oh && w == ow) { /* every mode: a plain copy */
		for (long long p = blockIdx.y; p < planes; p += gridDim.y)
			y[p * out_plane + pix] = x[p * in_plane + (long long)oy * w + ox];
		return;
	}

	if (mode == 0) {
		float sh = scales_value(scale_h, h, oh);
		float sw = scales_value(scale_w, w, ow);
		long long iy = h == oh ? oy : min((long long)floorf((float)oy * sh), h - 1);
		long long ix = w == ow ? ox : min((long long)floorf((float)ox * sw), w - 1);
		for (long long p = blockIdx.y; p < planes; p += gridDim.y)
			y[p * out_plane + pix] = x[p * in_plane + iy * w + ix];
		return;
	}

	float rh = pixel_scale(h, oh, align_corners, scale_h);
	float rw = pixel_scale(w, ow, align_corners, scale_w);

	if (mode == 1) {
		float h1r = source_index(rh, oy, align_corners, false);
		int h1 = (int)h1r;
		int h1p = (h1 < h - 1) ? 1 : 0;
		float h1l = h1r - (float)h1;
		float h0l = 1.0f - h1l;
		float w1r = source_index(rw, ox, align_corners, false);
		int w1 = (int)w1r;
		int w1p = (w1 < w - 1) ? 1 : 0;
		float w1l = w1r - (float)w1;
		float w0l = 1.0f - w1l;
		long long o00 = (long long)h1 * w + w1;
		long long o01 = o00 + w1p;
		long long o10 = o00 + (long long)h1p * w;
		long long o11 = o10 + w1p;
		for (long long p = blockIdx.y; p < planes; p += gridDim.y) {
			const float *xp = x + p * in_plane;
			float val = h0l * (w0l * xp[o00] + w1l * xp[o01]) + h1l * (w0l * xp[o10] + w1l * xp[o11]);
			y[p * out_plane + pix] = val;
		}
		return;
	}

	/* bicubic: 4 x 4 taps with clamped (replicated) borders, rows first then the column */
	float real_x = source_index(rw, ox, align_corners, true);
	int in_x = (int)floorf(real_x);
	float t_x = real_x - (float)in_x;
	float real_y = source_index(rh, oy, align_corners, true);
	int in_y = (int)floorf(real_y);
	float t_y = real_y - (float)in_y;
	float cx[4], cy[4];
	cubic_coeffs(cx, t_x);
	cubic_coeffs(cy, t_y);
	long long xs[4], ys[4];
	for (int k = 0; k < 4; k++) {
		xs[k] = max(min((long long)in_x - 1 + k, w - 1), 0LL);
		ys[k] = max(min((long long)in_y - 1 + k, h - 1), 0LL);
	}
	for (long long p = blockIdx.y; p < planes; p += gridDim.y) {
		const float *xp = x + p * in_plane;
		float rows[4];
		for (int k = 0; k < 4; k++) {
			const float *r = xp + ys[k] * w;
			rows[k] = r[xs[0]] * cx[0] + r[xs[1]] * cx[1] + r[xs[2]] * cx[2] + r[xs[3]] * cx[3];
		}
		y[p * out_plane + pix] = rows[0] * cy[0] + rows[1] * cy[1] + rows[2] * cy[2] + rows[3] * cy[3];
	}
}
