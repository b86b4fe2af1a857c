// grid_sample_with_affine reference: F.affine_grid followed by F.grid_sample (4-D), fused: each thread
// builds the grid point of one output location (n, oy, ox) and samples every channel with it.
//
// affine_grid, as ATen computes it on the GPU:
//  - base coordinates: linspace(-1, 1, size) of the CUDA linspace kernel, step = 2 / (size - 1) in
//    f32, start + step * i for i < size / 2 and end - step * (size - 1 - i) above (each an fma as
//    nvcc compiles it); without align_corners times (size - 1), then times 1 / size (PyTorch divides
//    a tensor by a scalar as a product with the f32 reciprocal); a size of 1 gives 0;
//  - [x, y, 1] @ theta^T: a three-term f32 dot, here acc = x * t0, fma(y, t1, acc), + t2 (cuBLAS's
//    order for this k = 3 bmm is not documented; for the test's identity theta every order agrees).
// grid_sample as GridSampler.cu: unnormalize (align_corners ? (g + 1) / 2 * (size - 1) :
// ((g + 1) * size - 1) / 2, an fma), padding (border clamps with fmaxf / fminf, reflection folds
// by fmod and parity), non-finite or out-of-int coordinates -> -100; bilinear adds the in-image
// corners as fma(value, weight, acc) in the order nw, ne, sw, se; nearest uses nearbyintf;
// bicubic unnormalizes without padding, takes the 4 x 4 taps around floor(coord) each with its
// own padded coordinate (get_value_bounded) and interpolates rows, then the column, with the cubic
// convolution coefficients (A = -0.75), written as in PyTorch's UpSample.cuh.
//
// Accuracy: the same f32 operations as PyTorch's kernels (up to their compiled fma contractions and
// cuBLAS's dot order); see task.ini for how coordinate rounding moves the result.
//
// @kbx launch affine_grid_sample<<<max(1, min(cdiv(n * oh * ow, 256), sms * 64)), 256>>>(input, theta, y, n, c, h, w, oh, ow, mode, padding_mode, align_corners)

__device__ __forceinline__ float base_coord(long long i, long long steps, int align_corners)
{
	if (steps <= 1)
		return 0.f;
	const float step = 2.f / (float)(steps - 1);
	float v = (i < steps / 2) ? fmaf(step, (float)i, -1.f) : fmaf(-step, (float)(steps - i - 1), 1.f);
	if (!align_corners) {
		v = v * (float)(steps - 1);
		v = v * (1.f / (float)steps);
	}
	return v;
}

__device__ __forceinline__ float unnormalize(float coord, long long size, int align_corners)
{
	if (align_corners)
		return ((coord + 1.f) / 2) * (float)(size - 1);
	return fmaf(coord + 1.f, (float)size, -1.f) / 2;
}

__device__ __forceinline__ float reflect_coordinates(float in, long long twice_low, long long twice_high)
{
	if (twice_low == twice_high)
		return 0.f;
	float mn = (float)twice_low / 2;
	float span = (float)(twice_high - twice_low) / 2;
	in = fabsf(in - mn);
	float extra = fmodf(in, span);
	int flips = (int)floorf(in / span);
	return (flips % 2 == 0) ? extra + mn : span - extra + mn;
}

// compute_coordinates: padding, then safe_downgrade_to_int_range
__device__ __forceinline__ float pad_coord(float coord, long long size, int padding_mode, int align_corners)
{
	if (padding_mode == 1) {
		coord = fminf((float)(size - 1), fmaxf(coord, 0.f));
	} else if (padding_mode == 2) {
		coord = align_corners ? reflect_coordinates(coord, 0, 2 * (size - 1))
		                      : reflect_coordinates(coord, -1, 2 * size - 1);
		coord = fminf((float)(size - 1), fmaxf(coord, 0.f));
	}
	if (!isfinite(coord) || coord > (float)(2147483647 - 1) || coord < (float)(-2147483647 - 1))
		return -100.f;
	return coord;
}

__device__ __forceinline__ float cubic_convolution1(float x, float A)
{
	return ((A + 2) * x - (A + 3)) * x * x + 1;
}

__device__ __forceinline__ float cubic_convolution2(float x, float A)
{
	return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}

__device__ __forceinline__ void cubic_coefficients(float coeffs[4], float t)
{
	const float A = -0.75f;
	coeffs[0] = cubic_convolution2(t + 1.0f, A);
	coeffs[1] = cubic_convolution1(t, A);
	const float x2 = 1.0f - t;
	coeffs[2] = cubic_convolution1(x2, A);
	coeffs[3] = cubic_convolution2(x2 + 1.0f, A);
}

__device__ __forceinline__ float cubic_interp1d(float x0, float x1, float x2, float x3, const float coeffs[4])
{
	return x0 * coeffs[0] + x1 * coeffs[1] + x2 * coeffs[2] + x3 * coeffs[3];
}

extern "C" __global__ void affine_grid_sample(const float* __restrict__ input, const float* __restrict__ theta,
                                              float* __restrict__ y, long long n, long long c, long long h,
                                              long long w, long long oh, long long ow, int mode, int padding_mode,
                                              int align_corners)
{
	const long long total = n * oh * ow;
	const long long in_plane = h * w, out_plane = oh * ow;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		const long long b = o / out_plane, sp = o % out_plane;
		const long long oy = sp / ow, ox = sp % ow;
		const float* t = theta + b * 6;
		const float bx = base_coord(ox, ow, align_corners), by = base_coord(oy, oh, align_corners);
		float gx = bx * t[0];
		gx = fmaf(by, t[1], gx);
		gx = gx + t[2];
		float gy = bx * t[3];
		gy = fmaf(by, t[4], gy);
		gy = gy + t[5];
		const float* in_b = input + b * c * in_plane;
		float* out = y + b * c * out_plane + sp;

		if (mode == 2) { // bicubic
			const float ix = unnormalize(gx, w, align_corners), iy = unnormalize(gy, h, align_corners);
			const float x0 = floorf(ix), y0 = floorf(iy);
			float cx[4], cy[4];
			cubic_coefficients(cx, ix - x0);
			cubic_coefficients(cy, iy - y0);
			int xs[4], ys[4];
			bool okx[4], oky[4];
#pragma unroll
			for (int k = 0; k < 4; k++) {
				xs[k] = (int)pad_coord(x0 - 1 + k, w, padding_mode, align_corners);
				ys[k] = (int)pad_coord(y0 - 1 + k, h, padding_mode, align_corners);
				okx[k] = xs[k] >= 0 && xs[k] < w;
				oky[k] = ys[k] >= 0 && ys[k] < h;
			}
			for (long long ch = 0; ch < c; ch++) {
				const float* p = in_b + ch * in_plane;
				float rows[4];
#pragma unroll
				for (int i = 0; i < 4; i++) {
					float v[4];
#pragma unroll
					for (int j = 0; j < 4; j++)
						v[j] = (oky[i] && okx[j]) ? p[(long long)ys[i] * w + xs[j]] : 0.f;
					rows[i] = cubic_interp1d(v[0], v[1], v[2], v[3], cx);
				}
				out[ch * out_plane] = cubic_interp1d(rows[0], rows[1], rows[2], rows[3], cy);
			}
			continue;
		}

		const float ix = pad_coord(unnormalize(gx, w, align_corners), w, padding_mode, align_corners);
		const float iy = pad_coord(unnormalize(gy, h, align_corners), h, padding_mode, align_corners);
		if (mode == 1) { // nearest
			const int xn = (int)nearbyintf(ix), yn = (int)nearbyintf(iy);
			const bool ok = xn >= 0 && xn < w && yn >= 0 && yn < h;
			for (long long ch = 0; ch < c; ch++)
				out[ch * out_plane] = ok ? in_b[ch * in_plane + (long long)yn * w + xn] : 0.f;
			continue;
		}

		// bilinear
		const int x0 = (int)floorf(ix), y0 = (int)floorf(iy);
		const int x1 = x0 + 1, y1 = y0 + 1;
		const float wt[4] = {((float)x1 - ix) * ((float)y1 - iy), (ix - (float)x0) * ((float)y1 - iy),
		                     ((float)x1 - ix) * (iy - (float)y0), (ix - (float)x0) * (iy - (float)y0)};
		const int cxs[4] = {x0, x1, x0, x1}, cys[4] = {y0, y0, y1, y1};
		bool ok[4];
		long long off[4];
#pragma unroll
		for (int k = 0; k < 4; k++) {
			ok[k] = cxs[k] >= 0 && cxs[k] < w && cys[k] >= 0 && cys[k] < h;
			off[k] = (long long)cys[k] * w + cxs[k];
		}
		for (long long ch = 0; ch < c; ch++) {
			const float* p = in_b + ch * in_plane;
			float acc = 0.f;
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (ok[k])
					acc = fmaf(p[off[k]], wt[k], acc);
			out[ch * out_plane] = acc;
		}
	}
}
