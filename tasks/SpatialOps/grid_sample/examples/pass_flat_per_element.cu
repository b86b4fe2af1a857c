// @kbx expect pass
// Correct alternative: a flat grid-stride loop over every output element (n, c, od, oh, ow), each
// recomputing its coordinates; the unnormalization written as x * size / 2 + (size - 1) / 2
// (align_corners False) and the corners summed as plain products, so coordinates and sums are
// rounded differently from PyTorch's kernel. Same padding rules, -100 for non-finite coordinates,
// NaN corners of weight 0 still poison the sum.
//
// @kbx launch grid_sample_flat<<<max(1, min(cdiv(n * c * od * oh * ow, 256), sms * 64)), 256>>>(input, grid, y, n, c, d, h, w, od, oh, ow, gd, mode, padding_mode, align_corners)

__device__ float src_coord(float g, long long size, int pad, int align)
{
	float x = align ? (g + 1.0f) * 0.5f * (float)(size - 1) : g * (0.5f * (float)size) + 0.5f * (float)(size - 1);
	if (pad == 2) {
		float lo = align ? 0.0f : -0.5f;
		float span = align ? (float)(size - 1) : (float)size;
		if (span <= 0.0f) {
			x = 0.0f;
		} else {
			float t = fabsf(x - lo);
			float e = fmodf(t, span);
			int f = (int)floorf(t / span);
			x = (f & 1) ? span - e + lo : e + lo;
		}
	}
	if (pad >= 1)
		x = fminf(fmaxf(x, 0.0f), (float)(size - 1));
	if (!(x >= -2147483648.0f && x <= 2147483648.0f)) // NaN, inf or beyond int
		x = -100.0f;
	return x;
}

extern "C" __global__ void grid_sample_flat(const float* __restrict__ input, const float* __restrict__ grid,
                                            float* __restrict__ y, long long n, long long c, long long d, long long h,
                                            long long w, long long od, long long oh, long long ow, long long gd,
                                            int mode, int padding_mode, int align_corners)
{
	const long long sp_n = od * oh * ow, total = n * c * sp_n;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long sp = o % sp_n, ch = (o / sp_n) % c, b = o / (sp_n * c);
		const float* g = grid + (b * sp_n + sp) * gd;
		const float* p = input + (b * c + ch) * d * h * w;
		float fx = src_coord(g[0], w, padding_mode, align_corners);
		float fy = src_coord(g[1], h, padding_mode, align_corners);
		float fz = gd == 3 ? src_coord(g[2], d, padding_mode, align_corners) : 0.0f;
		float r = 0.0f;
		if (mode == 1) {
			long long xi = (long long)rintf(fx), yi = (long long)rintf(fy), zi = (long long)rintf(fz);
			if (xi >= 0 && xi < w && yi >= 0 && yi < h && zi >= 0 && zi < d)
				r = p[(zi * h + yi) * w + xi];
		} else {
			long long x0 = (long long)floorf(fx), y0 = (long long)floorf(fy), z0 = (long long)floorf(fz);
			int nz = gd == 3 ? 2 : 1;
			for (int k = 0; k < 4 * nz; k++) {
				long long xi = x0 + (k & 1), yi = y0 + ((k >> 1) & 1), zi = z0 + (k >> 2);
				if (xi < 0 || xi >= w || yi < 0 || yi >= h || zi < 0 || zi >= d)
					continue;
				float wx = (k & 1) ? fx - (float)x0 : (float)(x0 + 1) - fx;
				float wy = ((k >> 1) & 1) ? fy - (float)y0 : (float)(y0 + 1) - fy;
				float wt = wx * wy;
				if (gd == 3)
					wt *= (k >> 2) ? fz - (float)z0 : (float)(z0 + 1) - fz;
				r += p[(zi * h + yi) * w + xi] * wt;
			}
		}
		y[o] = r;
	}
}
