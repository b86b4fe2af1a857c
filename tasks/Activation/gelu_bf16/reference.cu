// Activation/gelu_bf16: the reference since 2026-12-01. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// All four 16-byte loads of a thread issued before any arithmetic, and a cheap
// exact branch of erff for |x| < 1.418 (which is every input of the perf workload, torch.rand).
//
// Why the former reference is slow (2^27 elements: 3319 GB/s, 78% of the 4253 GB/s copy rate, while the
// f32 gelu reference with the same loop reaches ~95%): per byte moved, bf16 does twice the
// arithmetic of f32 (8 erff per 16-byte load instead of 4), and erff is ~25 instructions (libdevice
// evaluates one Horner chain whose seven coefficients are each picked by a select between its
// two branches, plus the exp branch): with the conversions and the GELU around it ~30
// instructions per element, 2^27 * 30 / 32 lanes = 126 M warp instructions / (132 SMs * 4
// issue/clk * 1.98 GHz) = ~120 us of issue, as long as the 126 us the DRAM needs. Moreover the
// grid-stride loop holds one 16-byte load per thread and none at all while it computes
// (load -> 8 erff -> store -> next load), so compute and memory overlap badly: 162 us.
//
// What this kernel does:
// - same grid as the former reference (cdiv(n, 8192) blocks of 256 threads), each block one contiguous
//   tile of 1024 vectors of 8 bf16; thread t loads vectors t, t + 256, t + 512, t + 768 of the
//   tile (coalesced) ALL FIRST (64 B in flight per thread, ~96 KB per SM at 40 registers), then
//   computes and stores them; streaming hints (__ldcs / __stcs) since every byte is touched once;
// - approximate = 0: per vector of 8, if every |x * M_SQRT1_2| < 1.00295997f (0x3F8060FE, the
//   threshold inside erff), erff is evaluated as its own small-argument branch written out:
//   t + t * P(t^2), the same seven coefficients and FMA order as libdevice's __nv_erff (read off
//   its PTX), ~8 instructions instead of ~25, then x * 0.5f * (1 + erf) in the former reference's order;
//   otherwise (any |x| >= 1.418, +-inf) the former reference's gelu_one with erff. fmaxf ignores a NaN, so
//   a NaN takes the cheap branch and gives NaN, like erff. approximate = 1: the former reference's tanh
//   formula unchanged. ~15 instructions per element on the perf workload: ~60 us of issue < 126 us;
// - the n % 8 tail elements one each by the first threads of the grid, as in the former reference;
//   vectors past the end are predicated off (partial last block); a scalar loop over the same tile
//   if x or y is not 16-byte aligned (never for cudaMalloc'd buffers, checked anyway). Every output
//   element is written exactly once; the input is only read; indices are long long.
//
// Correctness: apart from the cheap branch, the same f32 formulas in the same operation order and
// the same round-to-nearest-even conversions as the former reference: bit-identical. The cheap branch is
// erff's own arithmetic for that range, so also bit-identical (as long as the GPU's libdevice has
// the coefficients of this CUDA's; CUDA's erff has kept them for years). Even if it differed, a C
// model of the branch is within 0.78 f32 ulp of erf() on every bf16 input of the range, and its
// bf16 GELU equals the correctly rounded one on all 32620 of them; |y| < 1.3 there, where one bf16
// ulp (<= 7.8e-3) is inside the tolerance 5e-3 + 5e-3 |y|, so even a near-tie flip would pass.
//
// Expected at n = 2^27: bytes = 2 * 2 * 2^27 = 537 MB. At the copy rate 537 MB / 4253 GB/s =
// 126 us; with the loads batched and the arithmetic halved (~60 us of issue, well hidden) it
// should run like the f32 gelu (~95% of copy): ~133 us -> ~4040 GB/s; conservatively 90% ->
// 3830 GB/s (140 us). Reference: 162 us.
//
// @kbx launch gelu_bf16<<<max(1, cdiv(n, 8192)), 256>>>(x, y, n, approximate)

#include <cuda_bf16.h>

__device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f; /* sqrt(2 / pi) */
		const float kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f; /* M_SQRT1_2 */
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

// erff(t) for |t| < 1.00295997f (0x3F8060FE): the branch of CUDA's erff (libdevice __nv_erff) that
// needs no exp: t + t * P(t^2), the same seven coefficients and the same FMA order, read off the
// PTX of erff (a C model of it: 0.78 f32 ulp at most against erf() on every bf16 input in range).
// erff itself evaluates it with every coefficient chosen by a select and the exp branch beside
// it (~25 instructions); this is 8.
__device__ __forceinline__ float erf_small(float t)
{
	const float s = t * t;
	float r = __int_as_float(0x38B1E96A);
	r = fmaf(r, s, __int_as_float(0xBA574D20));
	r = fmaf(r, s, __int_as_float(0x3BAAD5EA));
	r = fmaf(r, s, __int_as_float(0xBCDC1BE7));
	r = fmaf(r, s, __int_as_float(0x3DE718AF));
	r = fmaf(r, s, __int_as_float(0xBEC093AC));
	r = fmaf(r, s, __int_as_float(0x3E0375D3));
	return fmaf(r, t, t);
}

// GELU of 8 bf16 values. approximate = 0: if all |x * M_SQRT1_2| < 1.00295997 (|x| < 1.4184: every
// input of the perf workload torch.rand), the cheap erf branch; otherwise (or with any NaN / inf
// making the test false; fmaxf drops a NaN, which then goes through the cheap branch and stays NaN)
// the reference's own gelu_one with erff.
__device__ __forceinline__ uint4 gelu_vec(uint4 p, int approximate)
{
	__nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&p);
	if (approximate) {
#pragma unroll
		for (int k = 0; k < 4; k++) {
			float2 f = __bfloat1622float2(h[k]);
			h[k] = __floats2bfloat162_rn(gelu_one(f.x, 1), gelu_one(f.y, 1));
		}
		return p;
	}
	const float kAlpha = 0.7071067811865476f; /* M_SQRT1_2 */
	float x[8], t[8], mx = 0.0f;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		float2 f = __bfloat1622float2(h[k]);
		x[2 * k] = f.x;
		x[2 * k + 1] = f.y;
	}
#pragma unroll
	for (int k = 0; k < 8; k++) {
		t[k] = x[k] * kAlpha;
		mx = fmaxf(mx, fabsf(t[k]));
	}
	if (mx < __int_as_float(0x3F8060FE)) {
#pragma unroll
		for (int k = 0; k < 4; k++)
			h[k] = __floats2bfloat162_rn(x[2 * k] * 0.5f * (1.0f + erf_small(t[2 * k])),
						     x[2 * k + 1] * 0.5f * (1.0f + erf_small(t[2 * k + 1])));
	} else {
#pragma unroll
		for (int k = 0; k < 4; k++)
			h[k] = __floats2bfloat162_rn(x[2 * k] * 0.5f * (1.0f + erff(t[2 * k])),
						     x[2 * k + 1] * 0.5f * (1.0f + erff(t[2 * k + 1])));
	}
	return p;
}

extern "C" __global__ void __launch_bounds__(256)
gelu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y, long long n, int approximate)
{
	const long long n8 = n / 8;
	const bool aligned = ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
	if (aligned) {
		const uint4 *x8 = reinterpret_cast<const uint4 *>(x);
		uint4 *y8 = reinterpret_cast<uint4 *>(y);
		const long long v0 = (long long)blockIdx.x * 1024 + threadIdx.x;
		uint4 p[4];
		if (v0 + 768 < n8) { /* full tile for this thread: no predicates */
#pragma unroll
			for (int k = 0; k < 4; k++)
				p[k] = __ldcs(x8 + v0 + k * 256);
#pragma unroll
			for (int k = 0; k < 4; k++)
				__stcs(y8 + v0 + k * 256, gelu_vec(p[k], approximate));
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				p[k] = v0 + k * 256 < n8 ? __ldcs(x8 + v0 + k * 256) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (v0 + k * 256 < n8)
					__stcs(y8 + v0 + k * 256, gelu_vec(p[k], approximate));
		}
		const long long i = n8 * 8 + (long long)blockIdx.x * 256 + threadIdx.x; /* at most 7 tail elements */
		if (i < n)
			y[i] = __float2bfloat16_rn(gelu_one(__bfloat162float(x[i]), approximate));
	} else {
		const long long end = min(n, ((long long)blockIdx.x + 1) * 8192);
		for (long long i = (long long)blockIdx.x * 8192 + threadIdx.x; i < end; i += 256)
			y[i] = __float2bfloat16_rn(gelu_one(__bfloat162float(x[i]), approximate));
	}
}
