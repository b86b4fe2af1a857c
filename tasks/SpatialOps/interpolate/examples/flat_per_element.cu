// @kbx expect pass
// Correct alternative: a flat grid-stride loop, one output element (n, c, oy, ox) per iteration, each
// recomputing its coordinates; bilinear written as a sum of four weight products h?l * w?l * v (the same
// value up to rounding, and still 0 * NaN = NaN for zero-weight taps).
// @kbx launch interpolate_f32<<<max(1, min(cdiv(n * c * oh * ow, 256), sms * 32)), 256>>>(x, y, n, c, h, w, oh, ow, mode, align_corners, scale_h, scale_w)

__device__ float src_scale(long long in, long long out, int align_corners, double scale)
{
	if (align_corners)
		return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
	return scale > 0.0 ? (float)(1.0 / scale) : (float)in / (float)out;
}

__device__ float cubic_w(float d)
{
	/* Keys kernel with A = -0.75 on |d| */
	const float A = -0.75f;
	d = fabsf(d);
	if (d <= 1.0f)
		return ((A + 2.0f) * d - (A + 3.0f)) * d * d + 1.0f;
	return ((A * d - 5.0f * A) * d + 8.0f * A) * d - 4.0f * A;
}

extern "C" __global__ void interpolate_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					   long long c, long long h, long long w, long long oh, long long ow, int mode,
					   int align_corners, double scale_h, double scale_w)
{
	long long total = n * c * oh * ow;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
	     i += (long long)gridDim.x * blockDim.x) {
		long long ox = i % ow;
		long long oy = (i / ow) % oh;
		long long p = i / (ow * oh);
		const float *xp = x + p * h * w;
		if (h == oh && w == ow) {
			y[i] = xp[oy * w + ox];
			continue;
		}
		if (mode == 0) {
			float sh = scale_h > 0.0 ? (float)(1.0 / scale_h) : (float)h / (float)oh;
			float sw = scale_w > 0.0 ? (float)(1.0 / scale_w) : (float)w / (float)ow;
			long long iy = h == oh ? oy : min((long long)floorf((float)oy * sh), h - 1);
			long long ix = w == ow ? ox : min((long long)floorf((float)ox * sw), w - 1);
			y[i] = xp[iy * w + ix];
			continue;
		}
		float rh = src_scale(h, oh, align_corners, scale_h);
		float rw = src_scale(w, ow, align_corners, scale_w);
		float sy = align_corners ? rh * (float)oy : rh * ((float)oy + 0.5f) - 0.5f;
		float sx = align_corners ? rw * (float)ox : rw * ((float)ox + 0.5f) - 0.5f;
		if (mode == 1) {
			sy = fmaxf(sy, 0.0f);
			sx = fmaxf(sx, 0.0f);
			long long y0 = (long long)sy, x0 = (long long)sx;
			long long y1 = y0 < h - 1 ? y0 + 1 : y0;
			long long x1 = x0 < w - 1 ? x0 + 1 : x0;
			float ly = sy - (float)y0, lx = sx - (float)x0;
			y[i] = (1.0f - ly) * (1.0f - lx) * xp[y0 * w + x0] + (1.0f - ly) * lx * xp[y0 * w + x1] +
			       ly * (1.0f - lx) * xp[y1 * w + x0] + ly * lx * xp[y1 * w + x1];
			continue;
		}
		float fy = floorf(sy), fx = floorf(sx);
		float ty = sy - fy, tx = sx - fx;
		float acc = 0.0f;
		for (int a = 0; a < 4; a++) {
			long long yy = max(min((long long)fy - 1 + a, h - 1), 0LL);
			float row = 0.0f;
			for (int b = 0; b < 4; b++) {
				long long xx = max(min((long long)fx - 1 + b, w - 1), 0LL);
				row += xp[yy * w + xx] * cubic_w(tx - (float)(b - 1));
			}
			acc += row * cubic_w(ty - (float)(a - 1));
		}
		y[i] = acc;
	}
}
