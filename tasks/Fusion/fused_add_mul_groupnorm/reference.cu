// fused_add_mul_groupnorm reference: the three PyTorch stages, each into its own buffer.
//   stage `add`        (torch.add(input1, input2)):  add = input1 + input2   (input2 broadcast)
//   stage `mul`        (torch.mul(z, input2)):       mul = add * input2      (input2 broadcast)
//   stage group_norm   (F.group_norm(m, groups, weight, bias, eps)), in three launches:
//     gn_partial: per (sample, group) and chunk of the group's contiguous C/G * H * W values, the
//                 f64 sum and sum of squares (a warp-shuffle + shared-memory tree per block);
//     gn_stats:   one block per (sample, group) combines its chunks: mean = S / cnt,
//                 var = SS / cnt - mean^2 (biased), rstd = 1 / sqrt(var + eps), all in f64; stored
//                 in f64 in `gn_stat64` (mean, rstd) and, for stage diffs, rounded to f32 in
//                 `gn_mean` and `gn_rstd`;
//     gn_apply:   y = (mul - mean) * rstd * weight[c] + bias[c] in f64 from `gn_stat64`, rounded
//                 once to f32.
// The f32 values are exact in f64 and so are their squares, so the only rounding in the statistics
// is the f64 accumulation (relative ~1e-16 * cnt), and y is within about half an f32 ulp of the
// exact group norm of `mul` for any group size. The apply stage deliberately does not use the f32
// mean: its rounding (half an ulp of |mean|) moves y by up to |mean| / std * 3e-8 * |weight|, a
// third of the 1e-5 tolerance on offset_data_scalar_bcast (|mean| / std ~ 41), where PyTorch's own
// f32 result (Welford statistics, then y = x * a + b with a = rstd * weight, b = bias - a * mean)
// is up to 0.7 of the tolerance from the exact one: the two errors together exceeded 1e-5 on an
// H200. Every f32 implementation pays that price; the reference should not add its own.
// Storing `add` and `mul` costs two extra passes over the tensor: the price of a reference whose
// stages can be diffed. weight = None and bias = None of the function are weight = 1, bias = 0.
//
// Chunks per group: P = max(1, min(cdiv(c / groups * h * w, 16384), 1024)).
//
// @kbx scratch add f32 [n, c, h, w]
// @kbx scratch mul f32 [n, c, h, w]
// @kbx scratch gn_part f64 [n * groups * max(1, min(cdiv(c / groups * h * w, 16384), 1024)) * 2]
// @kbx scratch gn_mean f32 [n * groups]
// @kbx scratch gn_rstd f32 [n * groups]
// @kbx scratch gn_stat64 f64 [n * groups * 2]
// @kbx launch bcast_binary<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(input1, input2, add, n, c, i64(h * w), w, n2, c2, h2, w2, i32(0))
// @kbx launch bcast_binary<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(add, input2, mul, n, c, i64(h * w), w, n2, c2, h2, w2, i32(1))
// @kbx launch gn_partial<<<dim3(max(1, n * groups), max(1, min(cdiv(c / groups * h * w, 16384), 1024))), 256>>>(mul, gn_part, i64(n * groups), i64(c / groups * h * w))
// @kbx launch gn_stats<<<max(1, n * groups), 256>>>(gn_part, gn_mean, gn_rstd, gn_stat64, i64(n * groups), i64(max(1, min(cdiv(c / groups * h * w, 16384), 1024))), i64(c / groups * h * w), eps)
// @kbx launch gn_apply<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(mul, gn_stat64, weight, bias, y, n, c, i64(h * w), groups)

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
gn_partial(const float* __restrict__ x, double* __restrict__ part, long long ngroups, long long gs)
{
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
		part[(g * chunks + p) * 2] = s;
		part[(g * chunks + p) * 2 + 1] = q;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gn_stats(const double* __restrict__ part, float* __restrict__ mean, float* __restrict__ rstd,
         double* __restrict__ stat64, long long ngroups, long long chunks, long long gs, float eps)
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
		const double r = 1.0 / sqrt(var + (double)eps);
		mean[g] = (float)m;
		rstd[g] = (float)r;
		stat64[g * 2] = m;
		stat64[g * 2 + 1] = r;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gn_apply(const float* __restrict__ x, const double* __restrict__ stat64, const float* __restrict__ weight,
         const float* __restrict__ bias, float* __restrict__ y, long long n, long long c, long long hw,
         long long groups)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long cpg = c / groups;
	for (long long plane = blockIdx.y; plane < n * c; plane += gridDim.y) {
		const long long in = plane / c, ic = plane % c;
		const long long g = in * groups + ic / cpg;
		// scale and shift in f64: y = (x - mean) * (rstd * weight) + bias, one f32 rounding at the end
		const double mu = stat64[g * 2], sc = stat64[g * 2 + 1] * (double)weight[ic], bs = (double)bias[ic];
		const float* xp = x + plane * hw;
		float* yp = y + plane * hw;
		for (long long p = tid; p < hw; p += stride)
			yp[p] = (float)(((double)xp[p] - mu) * sc + bs);
	}
}
