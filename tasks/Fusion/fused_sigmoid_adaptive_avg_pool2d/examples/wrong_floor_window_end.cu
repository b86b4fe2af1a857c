// @kbx expect wrong
// Mistake: adaptive pooling windows ending at floor((i + 1) * h / oh) instead of the ceiling: the
// windows no longer overlap and lose their last row / column whenever h (w) is not a multiple of oh
// (ow); with an upsampling output some windows are even empty (0 / 0 = NaN). Identical on every
// test case (8 -> 4, 10 -> 5, 32 -> 8, ... all divide), wrong on uneven_7_to_3, uneven_prime and
// upsample. Same stages and scratch names as the reference: the first wrong stage reported is
// `adaptive_avg_pool2d`.
//
// @kbx scratch adaptive_avg_pool2d f32 [nb, c, oh, ow]
// @kbx launch adaptive_avg<<<max(1, min(nb * c * oh * ow, 65536)), 256>>>(input, adaptive_avg_pool2d, i64(nb * c), h, w, oh, ow)
// @kbx launch sigmoid<<<max(1, min(cdiv(nb * c * oh * ow, 256), 65536)), 256>>>(adaptive_avg_pool2d, y, i64(nb * c * oh * ow))

extern "C" __global__ void __launch_bounds__(256)
adaptive_avg(const float* __restrict__ x, float* __restrict__ out, long long planes, long long h, long long w,
             long long oh, long long ow)
{
	__shared__ double sh[8];
	const long long cells = planes * oh * ow;
	for (long long o = blockIdx.x; o < cells; o += gridDim.x) { // uniform over the block
		const long long j = o % ow, i = (o / ow) % oh, plane = o / (ow * oh);
		// BUG: the window ends at floor((i + 1) * h / oh), PyTorch uses the ceiling
		const long long r0 = i * h / oh, r1 = (i + 1) * h / oh;
		const long long c0 = j * w / ow, c1 = (j + 1) * w / ow;
		const long long cw = c1 - c0, cnt = (r1 - r0) * cw;
		const float* xp = x + plane * h * w;
		double s = 0.0;
		for (long long e = threadIdx.x; e < cnt; e += 256)
			s += (double)xp[(r0 + e / cw) * w + c0 + e % cw];
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if ((threadIdx.x & 31) == 0)
			sh[threadIdx.x >> 5] = s;
		__syncthreads();
		if (threadIdx.x == 0) {
			double t = 0.0;
			for (int k = 0; k < 8; k++)
				t += sh[k];
			out[o] = (float)(t / (double)cnt);
		}
		__syncthreads(); // sh is reused by the next cell
	}
}

// torch.sigmoid for f32: 1 / (1 + exp(-v)) in f32 (expf, IEEE division)
extern "C" __global__ void __launch_bounds__(256)
sigmoid(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		y[i] = 1.0f / (1.0f + expf(-x[i]));
}
