// @kbx expect wrong
// Mistake: the int64 target read through an int* (32-bit elements). Element r then is half of
// label r / 2: the low word (the label itself) for even r, the high word (0 for +1, -1 for -1) for
// odd r, so most odd rows and all rows past n / 2 get the wrong label. Right only for n = 1. Same
// stages and scratch names as the reference: the first wrong stage reported should be `loss`.
//
// @kbx scratch normalize f32 [n, d]
// @kbx scratch normalize2 f32 [n, d]
// @kbx scratch sum f32 [n]
// @kbx scratch loss f32 [n]
// @kbx scratch loss_part f64 [max(1, min(cdiv(n, 16384), 1024))]
// @kbx launch normalize_rows<<<max(1, min(cdiv(n, 8), 65536)), 256>>>(input1, input2, normalize, normalize2, sum, n, d)
// @kbx launch loss_rows<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(sum, target, loss, n, margin)
// @kbx launch loss_partial<<<max(1, min(cdiv(n, 16384), 1024)), 256>>>(loss, loss_part, n)
// @kbx launch loss_final<<<1, 256>>>(loss, loss_part, y, n, i64(max(1, min(cdiv(n, 16384), 1024))), reduction)

extern "C" __global__ void __launch_bounds__(256)
normalize_rows(const float* __restrict__ x1, const float* __restrict__ x2, float* __restrict__ n1,
               float* __restrict__ n2, float* __restrict__ cs, long long n, long long d)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < n; r += warps) {
		const float* a = x1 + r * d;
		const float* b = x2 + r * d;
		double sa = 0.0, sb = 0.0;
		for (long long j = lane; j < d; j += 32) {
			double va = (double)a[j], vb = (double)b[j];
			sa += va * va;
			sb += vb * vb;
		}
		for (int o = 16; o > 0; o >>= 1) {
			sa += __shfl_xor_sync(0xffffffffu, sa, o);
			sb += __shfl_xor_sync(0xffffffffu, sb, o);
		}
		float na = (float)sqrt(sa), nb = (float)sqrt(sb);
		na = na < 1e-12f ? 1e-12f : na; // clamp_min(1e-12): a NaN norm stays NaN
		nb = nb < 1e-12f ? 1e-12f : nb;
		double dot = 0.0;
		for (long long j = lane; j < d; j += 32) {
			float qa = __fdiv_rn(a[j], na), qb = __fdiv_rn(b[j], nb);
			n1[r * d + j] = qa;
			n2[r * d + j] = qb;
			dot += (double)__fmul_rn(qa, qb);
		}
		for (int o = 16; o > 0; o >>= 1)
			dot += __shfl_xor_sync(0xffffffffu, dot, o);
		if (lane == 0)
			cs[r] = (float)dot;
	}
}

extern "C" __global__ void __launch_bounds__(256)
loss_rows(const float* __restrict__ cs, const int* __restrict__ target, float* __restrict__ loss, long long n,
          float margin)
{
	for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += (long long)gridDim.x * blockDim.x) {
		const float c = cs[r];
		float l = __fsub_rn(1.0f, __fmul_rn(c, (float)target[r])); // BUG: 32-bit reads of int64 labels
		l = l < 0.0f ? 0.0f : l; // clamp(min=0), NaN kept
		if (margin > 0.0f) {
			const float m = __fsub_rn(margin, c);
			l = (l != l || m != m) ? __int_as_float(0x7fffffff) : fmaxf(l, m); // torch.max propagates NaN
		}
		loss[r] = l;
	}
}

// Sum over the block (blockDim.x == 256); valid in thread 0.
static __device__ double block_sum(double v)
{
	__shared__ double sh[8];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	v = threadIdx.x < 8 ? sh[threadIdx.x] : 0.0;
	if (threadIdx.x < 32)
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

extern "C" __global__ void __launch_bounds__(256)
loss_partial(const float* __restrict__ loss, double* __restrict__ part, long long n)
{
	const long long chunks = gridDim.x, chunk = (n + chunks - 1) / chunks;
	const long long k0 = (long long)blockIdx.x * chunk, k1 = min(n, k0 + chunk);
	double acc = 0.0;
	for (long long k = k0 + threadIdx.x; k < k1; k += 256)
		acc += (double)loss[k];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

// reduction: 0 = 'none' (y = loss, [n]), 1 = 'mean', 2 = 'sum' (y[0]); mean of n = 0 is NaN.
extern "C" __global__ void __launch_bounds__(256)
loss_final(const float* __restrict__ loss, const double* __restrict__ part, float* __restrict__ y, long long n,
           long long chunks, int reduction)
{
	if (reduction == 0) {
		for (long long r = threadIdx.x; r < n; r += 256)
			y[r] = loss[r];
		return;
	}
	double acc = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += 256)
		acc += part[p];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[0] = (float)(reduction == 1 ? acc / (double)n : acc);
}
