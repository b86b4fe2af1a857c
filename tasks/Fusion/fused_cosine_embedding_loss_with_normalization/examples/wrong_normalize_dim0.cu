// @kbx expect wrong
// Mistake: normalising over the wrong axis: F.normalize(x, dim=0) (each column divided by its norm
// over the rows) where the function normalises each row (dim=1). Keeps the reference's stages and
// scratch names: the first wrong stage reported should be `normalize`.
//
// @kbx scratch normalize f32 [n, d]
// @kbx scratch normalize2 f32 [n, d]
// @kbx scratch sum f32 [n]
// @kbx scratch loss f32 [n]
// @kbx scratch loss_part f64 [max(1, min(cdiv(n, 16384), 1024))]
// @kbx scratch colnorm1 f32 [d]
// @kbx scratch colnorm2 f32 [d]
// @kbx launch col_norms<<<max(1, cdiv(d, 256)), 256>>>(input1, input2, colnorm1, colnorm2, n, d)
// @kbx launch normalize_rows<<<max(1, min(cdiv(n, 8), 65536)), 256>>>(input1, input2, colnorm1, colnorm2, normalize, normalize2, sum, n, d)
// @kbx launch loss_rows<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(sum, target, loss, n, margin)
// @kbx launch loss_partial<<<max(1, min(cdiv(n, 16384), 1024)), 256>>>(loss, loss_part, n)
// @kbx launch loss_final<<<1, 256>>>(loss, loss_part, y, n, i64(max(1, min(cdiv(n, 16384), 1024))), reduction)

// BUG: F.normalize(x, dim=0): each column is divided by its norm over the rows, instead of each row
// by its norm over the columns. Column j's norms come first, then every row is written.
extern "C" __global__ void __launch_bounds__(256)
col_norms(const float* __restrict__ x1, const float* __restrict__ x2, float* __restrict__ cn1, float* __restrict__ cn2,
          long long n, long long d)
{
	for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < d; j += (long long)gridDim.x * blockDim.x) {
		double sa = 0.0, sb = 0.0;
		for (long long r = 0; r < n; r++) {
			sa += (double)x1[r * d + j] * x1[r * d + j];
			sb += (double)x2[r * d + j] * x2[r * d + j];
		}
		float na = (float)sqrt(sa), nb = (float)sqrt(sb);
		cn1[j] = na < 1e-12f ? 1e-12f : na;
		cn2[j] = nb < 1e-12f ? 1e-12f : nb;
	}
}

extern "C" __global__ void __launch_bounds__(256)
normalize_rows(const float* __restrict__ x1, const float* __restrict__ x2, const float* __restrict__ cn1,
               const float* __restrict__ cn2, float* __restrict__ n1, float* __restrict__ n2, float* __restrict__ cs,
               long long n, long long d)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < n; r += warps) {
		double dot = 0.0;
		for (long long j = lane; j < d; j += 32) {
			float qa = __fdiv_rn(x1[r * d + j], cn1[j]), qb = __fdiv_rn(x2[r * d + j], cn2[j]);
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
loss_rows(const float* __restrict__ cs, const long long* __restrict__ target, float* __restrict__ loss, long long n,
          float margin)
{
	for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += (long long)gridDim.x * blockDim.x) {
		const float c = cs[r];
		float l = __fsub_rn(1.0f, __fmul_rn(c, (float)target[r]));
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
