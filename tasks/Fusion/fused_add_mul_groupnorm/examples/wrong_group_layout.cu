// @kbx expect wrong
// Mistake: normalising over the wrong set of values: group g is taken as the interleaved channels
// g, g + groups, g + 2 * groups, ... instead of the consecutive channels g * C/G .. (g + 1) * C/G - 1.
// Right only when every group is one channel or there is one group. Keeps the reference's stages
// and scratch names: the first wrong stage reported should be `gn_part` (the group partial sums;
// `add` and `mul` match).
//
// @kbx scratch add f32 [n, c, h, w]
// @kbx scratch mul f32 [n, c, h, w]
// @kbx scratch gn_part f64 [n * groups * max(1, min(cdiv(c / groups * h * w, 16384), 1024)) * 2]
// @kbx scratch gn_mean f32 [n * groups]
// @kbx scratch gn_rstd f32 [n * groups]
// @kbx launch bcast_binary<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(input1, input2, add, n, c, i64(h * w), w, n2, c2, h2, w2, i32(0))
// @kbx launch bcast_binary<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(add, input2, mul, n, c, i64(h * w), w, n2, c2, h2, w2, i32(1))
// @kbx launch gn_partial<<<dim3(max(1, n * groups), max(1, min(cdiv(c / groups * h * w, 16384), 1024))), 256>>>(mul, gn_part, i64(n * groups), i64(c / groups * h * w), i64(h * w), groups)
// @kbx launch gn_stats<<<max(1, n * groups), 256>>>(gn_part, gn_mean, gn_rstd, i64(n * groups), i64(max(1, min(cdiv(c / groups * h * w, 16384), 1024))), i64(c / groups * h * w), eps)
// @kbx launch gn_apply<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(mul, gn_mean, gn_rstd, weight, bias, y, n, c, i64(h * w), groups)

#define BLOCK 256

// out = a op B, a contiguous [n, c, h, w] (hw = h * w), B = input2 [n2, c2, h2, w2] with every dim 1 or
// equal to a's; op 0 = add, 1 = mul (each one f32 rounding, as eager PyTorch). blockIdx.y walks the
// (n, c) planes, x threads walk a plane.
extern "C" __global__ void __launch_bounds__(BLOCK)
bcast_binary(const float* __restrict__ a, const float* __restrict__ bsrc, float* __restrict__ out, long long n,
             long long c, long long hw, long long w, long long n2, long long c2, long long h2, long long w2, int op)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long h = w ? hw / w : 0;
	for (long long plane = blockIdx.y; plane < n * c; plane += gridDim.y) {
		const long long in = plane / c, ic = plane % c;
		const float* ap = a + plane * hw;
		float* op_ = out + plane * hw;
		const float* bp = bsrc + ((n2 == 1 ? 0 : in) * c2 + (c2 == 1 ? 0 : ic)) * h2 * w2;
		const bool full = h2 == h && w2 == w;
		for (long long p = tid; p < hw; p += stride) {
			float bv;
			if (full)
				bv = bp[p];
			else {
				long long ih = p / w, iw = p % w;
				bv = bp[(h2 == 1 ? 0 : ih) * w2 + (w2 == 1 ? 0 : iw)];
			}
			op_[p] = op ? __fmul_rn(ap[p], bv) : __fadd_rn(ap[p], bv);
		}
	}
}

// Sums of (s, q) over the block (blockDim.x == BLOCK); valid in thread 0.
static __device__ __forceinline__ void block_sum2(double& s, double& q)
{
	__shared__ double sh[2][BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1) {
		s += __shfl_down_sync(0xffffffffu, s, off);
		q += __shfl_down_sync(0xffffffffu, q, off);
	}
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		sh[0][warp] = s;
		sh[1][warp] = q;
	}
	__syncthreads();
	s = threadIdx.x < BLOCK / 32 ? sh[0][threadIdx.x] : 0.0;
	q = threadIdx.x < BLOCK / 32 ? sh[1][threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1) {
			s += __shfl_down_sync(0xffffffffu, s, off);
			q += __shfl_down_sync(0xffffffffu, q, off);
		}
}

// Block (g, p): chunk p of the gs contiguous values of group g (g = sample * groups + group).
extern "C" __global__ void __launch_bounds__(BLOCK)
gn_partial(const float* __restrict__ x, double* __restrict__ part, long long ngroups, long long gs, long long hw,
           long long groups)
{
	const long long g = blockIdx.x;
	if (g >= ngroups)
		return;
	const long long chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (gs + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(gs, k0 + chunk);
	// BUG: group `grp` of a sample taken as the channels ch with ch % groups == grp (interleaved)
	// instead of the C / groups consecutive channels grp * C / groups, ...
	const long long smp = g / groups, grp = g % groups, cpg = gs / hw;
	double s = 0.0, q = 0.0;
	for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK) {
		const long long ch = (k / hw) * groups + grp, p = k % hw;
		double v = (double)x[(smp * groups * cpg + ch) * hw + p];
		s += v;
		q += v * v;
	}
	block_sum2(s, q);
	if (threadIdx.x == 0) {
		part[(g * chunks + p) * 2] = s;
		part[(g * chunks + p) * 2 + 1] = q;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gn_stats(const double* __restrict__ part, float* __restrict__ mean, float* __restrict__ rstd, long long ngroups,
         long long chunks, long long gs, float eps)
{
	const long long g = blockIdx.x;
	if (g >= ngroups)
		return;
	double s = 0.0, q = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK) {
		s += part[(g * chunks + p) * 2];
		q += part[(g * chunks + p) * 2 + 1];
	}
	block_sum2(s, q);
	if (threadIdx.x == 0) {
		double m = s / (double)gs;
		double var = q / (double)gs - m * m;
		if (var < 0.0) // rounding of a (near-)constant group
			var = 0.0;
		mean[g] = (float)m;
		rstd[g] = (float)(1.0 / sqrt(var + (double)eps));
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gn_apply(const float* __restrict__ x, const float* __restrict__ mean, const float* __restrict__ rstd,
         const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ y, long long n,
         long long c, long long hw, long long groups)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long plane = blockIdx.y; plane < n * c; plane += gridDim.y) {
		const long long in = plane / c, ic = plane % c;
		const long long g = in * groups + ic % groups; // BUG (same mistake as in gn_partial)
		const float mu = mean[g], rs = rstd[g], wt = weight[ic], bs = bias[ic];
		const float* xp = x + plane * hw;
		float* yp = y + plane * hw;
		for (long long p = tid; p < hw; p += stride)
			yp[p] = ((xp[p] - mu) * rs) * wt + bs;
	}
}
