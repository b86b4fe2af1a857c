// F.grid_sample for 4-D (gd = 2, d = od = 1) and 5-D (gd = 3) f32 input, modes bilinear (0) and nearest
// (1), padding zeros (0), border (1), reflection (2), with the arithmetic of PyTorch's CUDA kernels
// (GridSampler.cu / GridSampler.cuh): f32 coordinates, the same operation order, the same clamping
// and int conversion rules. Details that decide results:
//  - unnormalize: align_corners ? (x + 1) / 2 * (size - 1) : ((x + 1) * size - 1) / 2, the latter
//    an fma as nvcc contracts PyTorch's expression;
//  - border clips with fmaxf / fminf (a NaN coordinate becomes 0); reflection folds by fmod and the
//    parity of floor(x / span), then clips; a non-finite or out-of-int-range coordinate becomes
//    -100 (out of bounds: zeros padding gives 0);
//  - bilinear: corners from floorf, weights (x_se - x) * (y_se - y) ... (three factors in 3-D,
//    ((a * b) * c)), each in-bounds corner added as fma(value, weight, acc) in the order nw, ne,
//    sw, se (3-D: tnw .. bse), so 0 * NaN = NaN for an in-bounds corner of weight 0;
//  - nearest: nearbyintf (ties to even).
// One thread per output location (n, od, oh, ow), grid-stride; the coordinates and weights are
// computed once and reused for every channel. Output writes are coalesced along ow.
//
// Accuracy: identical operations to PyTorch's kernel except possibly the fma contractions in its
// compiled code; see task.ini for how far a differently rounded coordinate moves the result.
//
// @kbx launch grid_sample_f32<<<max(1, min(cdiv(n * od * oh * ow, 256), sms * 64)), 256>>>(input, grid, y, n, c, d, h, w, od, oh, ow, gd, mode, padding_mode, align_corners)

__device__ __forceinline__ float unnormalize(float coord, long long size, int align_corners)
{
	if (align_corners)
		return ((coord + 1.f) / 2) * (float)(size - 1);
	return fmaf(coord + 1.f, (float)size, -1.f) / 2;
}

__device__ __forceinline__ float clip_coordinates(float in, long long size)
{
	return fminf((float)(size - 1), fmaxf(in, 0.f));
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

__device__ __forceinline__ float source_index(float coord, long long size, int padding_mode, int align_corners)
{
	coord = unnormalize(coord, size, align_corners);
	if (padding_mode == 1) {
		coord = clip_coordinates(coord, size);
	} else if (padding_mode == 2) {
		coord = align_corners ? reflect_coordinates(coord, 0, 2 * (size - 1))
		                      : reflect_coordinates(coord, -1, 2 * size - 1);
		coord = clip_coordinates(coord, size);
	}
	// safe_downgrade_to_int_range
	if (!isfinite(coord) || coord > (float)(2147483647 - 1) || coord < (float)(-2147483647 - 1))
		return -100.f;
	return coord;
}

__device__ __forceinline__ bool in_bounds(int z, int y, int x, long long D, long long H, long long W)
{
	return z >= 0 && z < D && y >= 0 && y < H && x >= 0 && x < W;
}

extern "C" __global__ void grid_sample_f32(const float* __restrict__ input, const float* __restrict__ grid,
                                           float* __restrict__ y, long long n, long long c, long long d,
                                           long long h, long long w, long long od, long long oh, long long ow,
                                           long long gd, int mode, int padding_mode, int align_corners)
{
	const long long total = n * od * oh * ow;
	const long long in_plane = d * h * w, out_plane = od * oh * ow;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		const long long b = o / out_plane, sp = o % out_plane; // batch, spatial position
		const float* g = grid + o * gd;
		const float* in_b = input + b * c * in_plane;
		float* out = y + b * c * out_plane + sp;
		const float ix = source_index(g[0], w, padding_mode, align_corners);
		const float iy = source_index(g[1], h, padding_mode, align_corners);
		const float iz = gd == 3 ? source_index(g[2], d, padding_mode, align_corners) : 0.f;

		if (mode == 1) { // nearest
			int xn = (int)nearbyintf(ix), yn = (int)nearbyintf(iy), zn = (int)nearbyintf(iz);
			bool ok = in_bounds(zn, yn, xn, d, h, w);
			long long off = ((long long)zn * h + yn) * w + xn;
			for (long long ch = 0; ch < c; ch++)
				out[ch * out_plane] = ok ? in_b[ch * in_plane + off] : 0.f;
			continue;
		}

		const int x0 = (int)floorf(ix), y0 = (int)floorf(iy), z0 = (int)floorf(iz);
		const int x1 = x0 + 1, y1 = y0 + 1, z1 = z0 + 1;
		if (gd == 2) {
			const float wt[4] = {((float)x1 - ix) * ((float)y1 - iy), (ix - (float)x0) * ((float)y1 - iy),
			                     ((float)x1 - ix) * (iy - (float)y0), (ix - (float)x0) * (iy - (float)y0)};
			const int cx[4] = {x0, x1, x0, x1}, cy[4] = {y0, y0, y1, y1};
			bool ok[4];
			long long off[4];
#pragma unroll
			for (int k = 0; k < 4; k++) {
				ok[k] = in_bounds(0, cy[k], cx[k], 1, h, w);
				off[k] = (long long)cy[k] * w + cx[k];
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
		} else {
			// corners t(op) = z0, b(ottom) = z1; n(orth) = y0, s(outh) = y1; w(est) = x0, e(ast) = x1
			const float wx0 = (float)x1 - ix, wx1 = ix - (float)x0;
			const float wy0 = (float)y1 - iy, wy1 = iy - (float)y0;
			const float wz0 = (float)z1 - iz, wz1 = iz - (float)z0;
			const float wt[8] = {wx0 * wy0 * wz0, wx1 * wy0 * wz0, wx0 * wy1 * wz0, wx1 * wy1 * wz0,
			                     wx0 * wy0 * wz1, wx1 * wy0 * wz1, wx0 * wy1 * wz1, wx1 * wy1 * wz1};
			bool ok[8];
			long long off[8];
#pragma unroll
			for (int k = 0; k < 8; k++) {
				int cx = (k & 1) ? x1 : x0, cy = (k & 2) ? y1 : y0, cz = (k & 4) ? z1 : z0;
				ok[k] = in_bounds(cz, cy, cx, d, h, w);
				off[k] = ((long long)cz * h + cy) * w + cx;
			}
			for (long long ch = 0; ch < c; ch++) {
				const float* p = in_b + ch * in_plane;
				float acc = 0.f;
#pragma unroll
				for (int k = 0; k < 8; k++)
					if (ok[k])
						acc = fmaf(p[off[k]], wt[k], acc);
				out[ch * out_plane] = acc;
			}
		}
	}
}
