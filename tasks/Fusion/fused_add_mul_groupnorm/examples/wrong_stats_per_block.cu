// @kbx expect wrong
// Mistake: a missing grid-wide dependency. The group statistics and the normalisation are fused
// into one launch with several blocks per group, and each block normalises with the statistics of
// its own chunk instead of the whole group's. Passes every case whose groups fit one block's chunk
// (the KernelBenchX shapes do) and fails one_large_group and large_groups_bcast_n. Keeps the
// reference's scratch names: the first wrong stage reported should be `gn_mean` (`add` and `mul`
// match).
//
// @kbx scratch add f32 [n, c, h, w]
// @kbx scratch mul f32 [n, c, h, w]
// @kbx scratch gn_mean f32 [n * groups]
// @kbx scratch gn_rstd f32 [n * groups]
// @kbx launch bcast_binary<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(input1, input2, add, n, c, i64(h * w), w, n2, c2, h2, w2, i32(0))
// @kbx launch bcast_binary<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(add, input2, mul, n, c, i64(h * w), w, n2, c2, h2, w2, i32(1))
// @kbx launch gn_fused<<<dim3(max(1, n * groups), max(1, min(cdiv(c / groups * h * w, 16384), 1024))), 256>>>(mul, gn_mean, gn_rstd, weight, bias, y, i64(n * groups), i64(c / groups * h * w), i64(h * w), c, groups, eps)

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

// BUG: statistics and normalisation fused in one launch, one block per chunk of a group: each
// block normalises its chunk with the mean and rstd of that chunk alone, because the group's
// statistics need every chunk of the group (a grid-wide dependency) and nothing waits for them.
// Right when a group fits in one chunk (<= 16384 values); groups of 33024 and 33924 values fail.
extern "C" __global__ void __launch_bounds__(BLOCK)
gn_fused(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ rstd,
         const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ y, long long ngroups,
         long long gs, long long hw, long long c, long long groups, float eps)
{
	__shared__ float stats[2];
	const long long g = blockIdx.x;
	if (g >= ngroups)
		return;
	const long long chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (gs + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(gs, k0 + chunk);
	const float* xg = x + g * gs;
	double s = 0.0, q = 0.0;
	for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK) {
		double v = (double)xg[k];
		s += v;
		q += v * v;
	}
	block_sum2(s, q);
	if (threadIdx.x == 0) {
		const double cnt = (double)(k1 - k0);
		double m = s / cnt, var = q / cnt - m * m;
		if (var < 0.0)
			var = 0.0;
		stats[0] = (float)m;
		stats[1] = (float)(1.0 / sqrt(var + (double)eps));
		mean[g] = stats[0]; // one of the blocks of the group wins the store
		rstd[g] = stats[1];
	}
	__syncthreads();
	const float mu = stats[0], rs = stats[1];
	const long long cpg = c / groups, ch0 = (g % groups) * cpg;
	for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK) {
		const long long ic = ch0 + k / hw;
		y[g * gs + k] = ((xg[k] - mu) * rs) * weight[ic] + bias[ic];
	}
}
