// @kbx expect pass
// Correct alternative: one block does everything, so the grid-wide dependency becomes a block
// barrier: 32 warps compute z (a warp per row, f32 fmaf), z stays in shared memory (n floats), then
// the block's max and sum of exponentials, then the dropped-out log-probabilities are written.
//
// @kbx launch mv_lsm_dropout<<<1, 1024, n * 4>>>(input, vec, y, n, m, p, training, seed)

#include <kbx/rng.h>

extern "C" __global__ void mv_lsm_dropout(const float* __restrict__ a, const float* __restrict__ v, float* __restrict__ y,
                                          long long n, long long m, float p, int training, long long seed)
{
	extern __shared__ float z[];
	__shared__ float red[32];
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	for (long long row = w; row < n; row += 32) {
		float s = 0.0f;
		for (long long k = lane; k < m; k += 32)
			s = fmaf(a[row * m + k], v[k], s);
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (lane == 0)
			z[row] = s;
	}
	__syncthreads();
	float mx = __int_as_float(0xff800000);
	for (long long i = threadIdx.x; i < n; i += 1024)
		mx = (z[i] != z[i] || z[i] > mx) ? z[i] : mx;
	for (int off = 16; off > 0; off >>= 1) {
		float o = __shfl_down_sync(0xffffffffu, mx, off);
		mx = (o != o || o > mx) ? o : mx;
	}
	if (lane == 0)
		red[w] = mx;
	__syncthreads();
	mx = red[0];
	for (int i = 1; i < 32; i++)
		mx = (red[i] != red[i] || red[i] > mx) ? red[i] : mx;
	__syncthreads();
	float s = 0.0f;
	for (long long i = threadIdx.x; i < n; i += 1024)
		s += expf(z[i] - mx);
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if (lane == 0)
		red[w] = s;
	__syncthreads();
	s = 0.0f;
	for (int i = 0; i < 32; i++)
		s += red[i];
	const float ls = logf(s);
	const float scale = p < 1.0f ? (float)(1.0 / (double)(float)(1.0 - (double)p)) : 0.0f;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		float o = (z[i] - mx) - ls;
		if (training && p > 0.0f)
			o = o * (kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p ? 1.0f : 0.0f) * scale;
		y[i] = o;
	}
}
