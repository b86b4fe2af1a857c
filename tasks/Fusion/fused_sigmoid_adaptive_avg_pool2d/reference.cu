// fused_sigmoid_adaptive_avg_pool2d reference: the two PyTorch stages, each into its own buffer.
//   stage `adaptive_avg_pool2d`: cell (i, j) = the mean of rows [floor(i*h/oh), ceil((i+1)*h/oh)) x
//                                columns [floor(j*w/ow), ceil((j+1)*w/ow)) of its plane
//   stage `sigmoid`:             y = 1 / (1 + exp(-v))
// Writing the pooled tensor out and reading it back is one extra (small) pass: the price of a
// reference whose stages can be diffed.
//
// One 256-thread block per output cell (grid-stride over cells): the threads stride over the
// window's elements row by row (coalesced along a row), accumulate in f64 and reduce with warp
// shuffles + shared memory; the sum is divided by the window's own count in f64 and rounded once.
// Windows range from 1 element to a whole 256 x 256 plane (the perf workload pools to 1 x 1).
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
		const long long r0 = i * h / oh, r1 = ((i + 1) * h + oh - 1) / oh;
		const long long c0 = j * w / ow, c1 = ((j + 1) * w + ow - 1) / ow;
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
