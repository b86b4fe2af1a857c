// @kbx expect pass
// Correct alternative: pooling and sigmoid fused, one warp per output cell (grid-stride over
// cells); the lanes stride over the window, sum in f32, a shuffle reduction gives the sum, lane 0
// divides by the window count and writes sigmoid of the mean. No intermediate buffer. f32 sums of
// up to 65536 values of one sign (perf) or randn windows of <= 1000 values stay ~1e-6 relative.
//
// @kbx launch pool_sigmoid<<<max(1, min(cdiv(nb * c * oh * ow, 8), 65536)), 256>>>(input, y, i64(nb * c), h, w, oh, ow)

extern "C" __global__ void pool_sigmoid(const float* __restrict__ x, float* __restrict__ y, long long planes,
                                        long long h, long long w, long long oh, long long ow)
{
	const long long warps = (long long)gridDim.x * 8;
	const int lane = threadIdx.x % 32;
	for (long long o = (long long)blockIdx.x * 8 + threadIdx.x / 32; o < planes * oh * ow; o += warps) {
		long long j = o % ow, i = (o / ow) % oh, plane = o / (ow * oh);
		long long r0 = i * h / oh, r1 = ((i + 1) * h + oh - 1) / oh;
		long long c0 = j * w / ow, c1 = ((j + 1) * w + ow - 1) / ow;
		float s = 0.0f;
		for (long long r = r0; r < r1; r++)
			for (long long cc = c0 + lane; cc < c1; cc += 32)
				s += x[(plane * h + r) * w + cc];
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, off);
		if (lane == 0) {
			float mean = s / (float)((r1 - r0) * (c1 - c0));
			y[o] = 1.0f / (1.0f + expf(-mean));
		}
	}
}
