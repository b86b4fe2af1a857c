// @kbx expect wrong
// Mistake: a missing grid-wide dependency. log_softmax normalises over all n entries of z, which
// many blocks compute; this candidate fuses mv and log_softmax in one kernel where each block of
// 8 warps computes 8 entries of z and normalises them by the max and sum of those 8 alone, without
// waiting for the rest of the vector. Right only when n <= 8 (the test's 3 x 4 cases); wrong for
// every longer vector. `mv` is written under the reference's name (it matches), the per-block
// log-probabilities under `log_softmax`: the first wrong stage reported should be `log_softmax`.
//
// @kbx scratch mv f32 [n]
// @kbx scratch log_softmax f32 [n]
// @kbx launch mv_lsm_blocks<<<max(1, cdiv(n, 8)), 256>>>(input, vec, mv, log_softmax, n, m)
// @kbx launch dropout_fwd<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(log_softmax, y, n, p, training, seed)

#include <kbx/rng.h>

extern "C" __global__ void mv_lsm_blocks(const float* __restrict__ a, const float* __restrict__ v, float* __restrict__ z,
                                         float* __restrict__ ls, long long n, long long m)
{
	__shared__ float zs[8];
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	const long long row = (long long)blockIdx.x * 8 + w;
	float s = 0.0f;
	if (row < n)
		for (long long k = lane; k < m; k += 32)
			s = fmaf(a[row * m + k], v[k], s);
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if (lane == 0) {
		zs[w] = row < n ? s : __int_as_float(0xff800000);
		if (row < n)
			z[row] = s;
	}
	__syncthreads();
	if (threadIdx.x == 0) { // BUG: the statistics of this block's 8 entries, not of the whole vector
		float mx = zs[0];
		for (int i = 1; i < 8; i++)
			mx = fmaxf(mx, zs[i]);
		float sum = 0.0f;
		for (int i = 0; i < 8; i++)
			sum += expf(zs[i] - mx);
		const float lsum = logf(sum);
		for (int i = 0; i < 8; i++)
			if (blockIdx.x * 8LL + i < n)
				ls[blockIdx.x * 8LL + i] = zs[i] - mx - lsum;
	}
}

extern "C" __global__ void dropout_fwd(const float* __restrict__ x, float* __restrict__ out, long long n, float p,
                                       int training, long long seed)
{
	const float scale = p < 1.0f ? (float)(1.0 / (double)(float)(1.0 - (double)p)) : 0.0f;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float v = x[i];
		if (training && p > 0.0f)
			v = v * (kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p ? 1.0f : 0.0f) * scale;
		out[i] = v;
	}
}
