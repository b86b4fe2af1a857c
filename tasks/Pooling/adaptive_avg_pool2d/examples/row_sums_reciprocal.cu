// @kbx expect pass
// Correct alternative: one block per output row (plane, oy): its threads take the ox, sum each window in
// f32 in PyTorch's order (row by row: a different order could overflow differently on huge values) and
// multiply by the reciprocal of the window area instead of two divisions (~1e-7 relative, inside the
// tolerance).
// @kbx launch aap_rows<<<max(1, min(p * oh, 65535)), 128>>>(x, y, p, h, w, oh, ow)

extern "C" __global__ void aap_rows(const float *__restrict__ x, float *__restrict__ y, long long p, long long h,
				    long long w, long long oh, long long ow)
{
	for (long long row = blockIdx.x; row < p * oh; row += gridDim.x) {
		long long plane = row / oh, oy = row % oh;
		long long h0 = oy * h / oh, h1 = ((oy + 1) * h + oh - 1) / oh;
		for (long long ox = threadIdx.x; ox < ow; ox += blockDim.x) {
			long long w0 = ox * w / ow, w1 = ((ox + 1) * w + ow - 1) / ow;
			float sum = 0.f;
			for (long long iy = h0; iy < h1; iy++)
				for (long long ix = w0; ix < w1; ix++)
					sum += x[(plane * h + iy) * w + ix];
			y[row * ow + ox] = sum * (1.0f / (float)((h1 - h0) * (w1 - w0)));
		}
	}
}
