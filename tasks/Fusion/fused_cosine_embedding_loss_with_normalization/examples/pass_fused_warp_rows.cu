// @kbx expect pass
// Correct alternative: one warp per row computes cos = (x1 . x2) / (max(||x1||, 1e-12) *
// max(||x2||, 1e-12)) in f32 from one read of the rows (the same value up to rounding as summing the
// normalised products) and the row's loss, stored in `loss` (the reference's name, so a wrong loss
// would be reported there); a single block then reduces the losses in f32.
//
// @kbx scratch loss f32 [n]
// @kbx launch row_loss<<<max(1, cdiv(n, 8)), 256>>>(input1, input2, target, loss, n, d, margin)
// @kbx launch reduce_loss<<<1, 1024>>>(loss, y, n, reduction)

extern "C" __global__ void row_loss(const float* __restrict__ x1, const float* __restrict__ x2,
                                    const long long* __restrict__ t, float* __restrict__ loss, long long n, long long d,
                                    float margin)
{
	long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (r >= n)
		return;
	float sa = 0.0f, sb = 0.0f, ab = 0.0f;
	for (long long j = lane; j < d; j += 32) {
		float a = x1[r * d + j], b = x2[r * d + j];
		sa += a * a;
		sb += b * b;
		ab += a * b;
	}
	for (int o = 16; o > 0; o >>= 1) {
		sa += __shfl_xor_sync(0xffffffffu, sa, o);
		sb += __shfl_xor_sync(0xffffffffu, sb, o);
		ab += __shfl_xor_sync(0xffffffffu, ab, o);
	}
	if (lane)
		return;
	float na = fmaxf(sqrtf(sa), 1e-12f), nb = fmaxf(sqrtf(sb), 1e-12f);
	if (sa != sa) na = sa; // keep NaN (fmaxf would drop it)
	if (sb != sb) nb = sb;
	float c = ab / (na * nb);
	float l = 1.0f - c * (float)t[r];
	l = l < 0.0f ? 0.0f : l;
	if (margin > 0.0f) {
		float m = margin - c;
		l = (l != l || m != m) ? l + m : fmaxf(l, m);
	}
	loss[r] = l;
}

extern "C" __global__ void reduce_loss(const float* __restrict__ loss, float* __restrict__ y, long long n, int reduction)
{
	__shared__ float sh[32];
	if (reduction == 0) {
		for (long long r = threadIdx.x; r < n; r += blockDim.x)
			y[r] = loss[r];
		return;
	}
	float s = 0.0f;
	for (long long r = threadIdx.x; r < n; r += blockDim.x)
		s += loss[r];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float tot = 0.0f;
		for (int w = 0; w < 32; w++)
			tot += sh[w];
		y[0] = reduction == 1 ? tot / (float)n : tot;
	}
}
