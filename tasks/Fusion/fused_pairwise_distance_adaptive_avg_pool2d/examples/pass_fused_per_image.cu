// @kbx expect pass
// Correct alternative (p = 2 and p = 1 computed in the fused kernel, other orders too): no
// intermediate tensors. Blocks (image, chunk) pool both inputs window by window in f32, take the
// difference and accumulate its contribution in f32 (warp shuffles, shared memory) into a per-chunk
// partial; a second kernel merges the partials of each image and adds eps.
//
// @kbx scratch partials f32 [b * 64]
// @kbx launch pool_diff_partial<<<dim3(max(1, b), 64), 256>>>(x1, x2, partials, b, c, h, w, oh, ow, p)
// @kbx launch finish<<<max(1, b), 64>>>(partials, y, b, p, eps)

__device__ __forceinline__ float comb(float a, float c, bool is_max)
{
	return is_max ? ((a != a || a > c) ? a : c) : a + c;
}

extern "C" __global__ void pool_diff_partial(const float* __restrict__ x1, const float* __restrict__ x2,
                                             float* __restrict__ part, long long b, long long c, long long h,
                                             long long w, long long oh, long long ow, float p)
{
	__shared__ float sh[8];
	const long long img = blockIdx.x;
	// b = 0 still launches one row of blocks (max(1, b)): they must neither read the empty inputs
	// nor write `partials`, which has b * 64 = 0 elements. (The whole block returns: no thread is
	// left waiting at __syncthreads.)
	if (img >= b)
		return;
	const long long N = c * oh * ow;
	const bool is_max = p == __int_as_float(0x7f800000);
	float acc = 0.0f;
	for (long long e = (long long)blockIdx.y * 256 + threadIdx.x; e < N; e += 64 * 256) {
		const long long j = e % ow, i = (e / ow) % oh, ch = e / (oh * ow);
		const long long r0 = (i * h) / oh, r1 = ((i + 1) * h + oh - 1) / oh;
		const long long c0 = (j * w) / ow, c1 = ((j + 1) * w + ow - 1) / ow;
		const float* a = x1 + (img * c + ch) * h * w;
		const float* q = x2 + (img * c + ch) * h * w;
		float s1 = 0.0f, s2 = 0.0f;
		for (long long r = r0; r < r1; r++)
			for (long long cc = c0; cc < c1; cc++) {
				s1 += a[r * w + cc];
				s2 += q[r * w + cc];
			}
		const float cnt = (float)((r1 - r0) * (c1 - c0));
		const float d = s1 / cnt - s2 / cnt;
		float t;
		if (p == 2.0f)
			t = d * d;
		else if (p == 1.0f || is_max)
			t = fabsf(d);
		else if (p == 0.0f)
			t = d != 0.0f ? 1.0f : 0.0f;
		else
			t = powf(fabsf(d), p);
		acc = comb(acc, t, is_max);
	}
	for (int off = 16; off > 0; off >>= 1)
		acc = comb(acc, __shfl_down_sync(0xffffffffu, acc, off), is_max);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = acc;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int k = 1; k < 8; k++)
			acc = comb(acc, sh[k], is_max);
		part[img * 64 + blockIdx.y] = acc;
	}
}

extern "C" __global__ void finish(const float* __restrict__ part, float* __restrict__ y, long long b, float p, float eps)
{
	const long long img = blockIdx.x;
	if (img >= b)
		return;
	const bool is_max = p == __int_as_float(0x7f800000);
	float acc = part[img * 64 + threadIdx.x];
	for (int off = 16; off > 0; off >>= 1)
		acc = comb(acc, __shfl_down_sync(0xffffffffu, acc, off), is_max);
	__shared__ float other;
	if (threadIdx.x == 32)
		other = acc;
	__syncthreads();
	if (threadIdx.x == 0) {
		acc = comb(acc, other, is_max);
		float r = acc;
		if (p == 2.0f)
			r = sqrtf(acc);
		else if (!(p == 1.0f || p == 0.0f || is_max))
			r = powf(acc, 1.0f / p);
		y[img] = r + eps;
	}
}
