// F.adaptive_avg_pool2d on planes x [p, h, w] -> y [p, oh, ow]. Output (oy, ox) averages rows
// [floor(oy * h / oh), ceil((oy + 1) * h / oh)) and columns [floor(ox * w / ow), ceil((ox + 1) * w / ow)),
// computed with integers as PyTorch's START_IND / END_IND.
//
// One thread per output element, grid-stride, consecutive threads on consecutive ox (their windows are
// adjacent, so a warp's loads of one window row cover a contiguous span, served from L1 when windows
// overlap or interleave). Each window is summed in f32 row by row, left to right, and divided by its
// height, then its width: the same operations in the same order as PyTorch's CUDA kernel, so the result
// is bit-identical to it (for oh = ow = 1 PyTorch uses torch.mean, a different summation order, within
// ~1e-6 relative here). 64-bit offsets throughout (the largest perf row has 3.2e9 input elements).
//
// Grid: min(cdiv(p * oh * ow, 256), 32 * sms) blocks of 256.

// @kbx launch adaptive_avg_pool2d<<<max(1, min(cdiv(p * oh * ow, 256), 32 * sms)), 256>>>(x, y, p, h, w, oh, ow)

extern "C" __global__ void __launch_bounds__(256)
adaptive_avg_pool2d(const float *__restrict__ x, float *__restrict__ y, long long p, long long h, long long w,
		    long long oh, long long ow)
{
	long long total = p * oh * ow;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long ox = o % ow, r = o / ow;
		long long oy = r % oh, plane = r / oh;
		long long h0 = (oy * h) / oh, h1 = ((oy + 1) * h + oh - 1) / oh;
		long long w0 = (ox * w) / ow, w1 = ((ox + 1) * w + ow - 1) / ow;
		const float *base = x + (plane * h + h0) * w + w0;
		float sum = 0.0f;
		for (long long iy = 0; iy < h1 - h0; iy++, base += w)
			for (long long ix = 0; ix < w1 - w0; ix++)
				sum = __fadd_rn(sum, base[ix]);
		y[o] = __fdiv_rn(__fdiv_rn(sum, (float)(h1 - h0)), (float)(w1 - w0));
	}
}
