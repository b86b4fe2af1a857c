// Fusion/fused_gelu_conv2d: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 14/14 outputs pass (max err 5.7e-06); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 42.8 ms
// against 116.9 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Faster version: one fused kernel, a shared-memory tiled direct 3 x 3 convolution in f32 with
// GELU in the epilogue (no intermediate buffer, no second pass).
//
// What the reference does, and why it is slow at the perf sizes: stage 1 is an implicit GEMM whose
// accumulation is f64 (products widened to f64, DFMA at half the f32 rate, 4 x 4 blocks fed by 8
// scalar f64 shared loads per 16 DFMAs, one shared buffer with two __syncthreads per k slice and no
// prefetch), the im2col index math (64-bit divisions) redone for every element of every slice, and
// 32-channel x 128-pixel tiles that re-gather each input pixel 9 times through shared memory. It
// writes the convolution to a scratch buffer that stage 2 (GELU) reads back: 3 passes over the
// output. The perf rows are 16 images, 16 -> 32 channels, 3 x 3, stride 1, padding 1, no bias, up to
// 1448 x 1448 pixels: the last rows are 1.07e9 outputs x 144 MACs (3.09e11 flops) and 4.3 GB of
// output, and the f64 core dominates.
//
// What this kernel does instead (fast path: kh = kw = 3, stride 1, dilation 1, groups 1, any nb,
// cin, cout, h, w, padding):
//  - a 256-thread block computes 32 output channels x an 8 x 32 tile of output pixels of one image:
//    it stages the tile's input halo (10 x 34 pixels) of 16 input channels and the 32 x 16 x 9
//    weights in shared memory once (43 KB static; 126 registers, 2 blocks per SM), so each input
//    pixel is read from global memory ~1.3 times (halo) and from shared memory once per tap row.
//    The staging is cheap: a thread copies one halo position for all 16 channels (one bounds test),
//    and 18 weights of one output channel (coalesced reads, conflict-free transposed stores);
//  - each thread owns 4 channels x 8 consecutive pixels of one row (32 accumulators): per (ci, ky)
//    it reads the 10 input values it needs with 2 LDS.128 + 1 LDS.64 and per kx the 4 weights with
//    one broadcast LDS.128 (a warp is one channel group: weights are warp-uniform), i.e. 96 FFMA
//    per 6 shared loads; halo rows are 36 floats apart, so the LDS.128 are conflict-free;
//  - cin > 16 loops over 16-channel stages; channels past cin and output channels past cout are
//    zero-filled; padding taps and the image border load 0;
//  - the epilogue adds the bias (has_bias), applies GELU with the reference's own formula (erff /
//    tanhf, same expression) and stores 8 consecutive pixels (2 float4 stores when ow % 4 == 0).
// Every other configuration (stride, dilation, groups, other kernel sizes: small test cases only)
// takes a simple direct path inside the same kernel (grid-stride over the outputs, the same
// per-channel-pair f32 accumulation), so one launch serves all cases.
//
// Why it stays within tolerance (rtol = atol = 1e-5 against the reference's correctly rounded f64
// sum, checked at every perf row too, whose weights are randn with R = 144 products): a plain f32
// chain over 144 randn products has rounding-walk errors up to ~1e-5 when partial sums are large
// and the result is near 0. A simulation of 2e7 outputs of the perf distribution (randn x randn,
// R = 144, GELU(erf), the task's elementwise test) gave 1 failure for the plain chain (~50 expected
// over the 1.07e9 outputs of the last row), and a worst error of 0.41 of the tolerance (tail
// falling ~40x per 0.1) with the accumulation used here: each pair of input channels (18 products)
// is summed in its own f32 register starting from its first product, then added to the output's
// accumulator (8 partial sums + 8 adds instead of one 144-long chain; error ~1.2e-6 rms, mostly the
// final rounding of a value of size ~12). GELU' <= 1.13, and the GELU is the reference's formula.
// Special values (NaN, +-inf inputs) propagate as in any summation order. Checked off-GPU by
// running this file and reference.cu in a CPU emulation of the CUDA execution model (one thread
// per CUDA thread, barriers for __syncthreads): every task case (worst 0.14 of the tolerance), the
// derived scalings, 270 random configurations, whole perf rows up to h = 64 and sampled blocks of
// the others up to h = 1448 (worst 0.34 of the tolerance over 2.1e6 perf-row outputs).
//
// Expected speed at the largest perf row (1448 x 1448): 1.07e9 outputs x 144 FMAs = 1.55e11 FFMA;
// at the H200's 66 TFLOP/s f32 that is 4.7 ms of pure FMA. Per thread per block: 4608 FFMA/FMUL
// + 288 LDS + 256 FADD (channel-pair sums) + ~140 loop instructions (the loop is 87% FFMA) +
// ~250 for the staging + ~760 for 32 GELUs (erff is ~22 instructions) and stores: ~73% of issue
// slots are FFMA, 6.7e9 warp-instructions over 133,216 blocks, ~6.4 ms at full issue, ~8 ms
// expected. Traffic: 0.54 GB input (+ halo, mostly L2) and 4.3 GB output written once: ~1.2 ms at
// 4 TB/s, overlapped. The reference (f64 conv + scratch round trip) takes ~56 ms there (about half
// of its 112 ms sum, the row being half the work): ~7x; the perf sum ~16 ms vs 112 ms (~7x). PyTorch
// (TF32 cuDNN + a GELU pass, memory bound on 3 output passes) is 10.5 ms at that row, 21.4 ms summed.
//
// @kbx launch conv3x3_gelu<<<dim3(max(1, cdiv((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1, 32) * cdiv((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, 8) * nb), max(1, cdiv(cout, 32))), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, approximate)

#define FT_H 8   // output rows per block tile
#define FT_W 32  // output columns per block tile
#define FCO 32   // output channels per block tile
#define FCI 16   // input channels per shared-memory stage
#define XH (FT_H + 2)
#define XW (FT_W + 2)
#define XP 36    // halo row stride in floats (XW rounded up to a multiple of 4)
#define WP 36    // weight row stride in floats: Ws[ci * 9 + tap][co]

// F.gelu on CUDA, in f32: the reference's formula, verbatim.
static __device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f;
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

// Any configuration: one output per thread (grid-stride over the whole grid), f32 accumulation with a
// partial sum per pair of input channels, like the fast path.
static __device__ void conv_gelu_generic(const float *__restrict__ input, const float *__restrict__ weight,
					 const float *__restrict__ bias, float *__restrict__ y, long long nb,
					 long long cin, long long h, long long w, long long cout, long long kh,
					 long long kw, long long stride, long long padding, long long dilation,
					 long long groups, int has_bias, int approximate, long long oh, long long ow)
{
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long total = nb * cout * oh * ow;
	const long long nthreads = (long long)gridDim.x * gridDim.y * blockDim.x;
	for (long long e = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x; e < total;
	     e += nthreads) {
		const long long ox = e % ow, oy = (e / ow) % oh, co = (e / (ow * oh)) % cout, n = e / (ow * oh * cout);
		const long long g = co / cout_g;
		const float *wc = weight + co * cin_g * kh * kw;
		const float *xg = input + (n * cin + g * cin_g) * h * w;
		float acc = 0.0f;
		for (long long c0 = 0; c0 < cin_g; c0 += 2) {
			float part = 0.0f;
			for (long long ci = c0; ci < c0 + 2 && ci < cin_g; ci++)
				for (long long ky = 0; ky < kh; ky++) {
					const long long iy = oy * stride - padding + ky * dilation;
					if (iy < 0 || iy >= h)
						continue;
					for (long long kx = 0; kx < kw; kx++) {
						const long long ix = ox * stride - padding + kx * dilation;
						if (ix < 0 || ix >= w)
							continue;
						part = fmaf(wc[(ci * kh + ky) * kw + kx], xg[(ci * h + iy) * w + ix], part);
					}
				}
			acc += part;
		}
		const float v = has_bias ? acc + bias[co] : acc;
		y[e] = gelu_one(v, approximate);
	}
}

extern "C" __global__ void __launch_bounds__(256, 2)
conv3x3_gelu(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
	     float *__restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
	     long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
	     int has_bias, int approximate)
{
	__shared__ __align__(16) float Xs[FCI][XH][XP]; // input halo: Xs[ci][row][col], 23040 bytes
	__shared__ __align__(16) float Ws[FCI * 9][WP]; // weights: Ws[ci * 9 + ky * 3 + kx][co], 20736 bytes

	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	if (!(kh == 3 && kw == 3 && stride == 1 && dilation == 1 && groups == 1)) { // uniform over the grid
		conv_gelu_generic(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation,
				  groups, has_bias, approximate, oh, ow);
		return;
	}

	// ---- the block's tile: image n, output rows oy0 .., columns ox0 .., channels co0 ..
	const long long tiles_x = (ow + FT_W - 1) / FT_W, tiles_y = (oh + FT_H - 1) / FT_H;
	const long long bt = blockIdx.x;
	const long long n = bt / (tiles_x * tiles_y);
	if (n >= nb) // uniform over the block (nb = 0, or a grid larger than the tiles)
		return;
	const long long trem = bt - n * tiles_x * tiles_y;
	const long long oy0 = (trem / tiles_x) * FT_H, ox0 = (trem % tiles_x) * FT_W;
	const long long co0 = (long long)blockIdx.y * FCO;
	const long long iy0 = oy0 - padding, ix0 = ox0 - padding; // halo origin in the input
	const long long hw = h * w;

	const int tid = threadIdx.x;
	const int cg = tid >> 5;        // channel group: channels co0 + cg * 4 .. + 3 (one warp)
	const int r = (tid >> 2) & 7;   // output row in the tile
	const int q = tid & 3;          // column group: columns q * 8 .. q * 8 + 7

	float acc[4][8];
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;

	for (long long ci0 = 0; ci0 < cin; ci0 += FCI) {
		if (ci0 > 0)
			__syncthreads(); // everyone is done with the previous stage
		// input halo of channels ci0 .. ci0 + 15 (0 outside the image and past cin): a thread takes
		// halo positions tid and tid + 256 and copies that pixel of the 16 channels
		const float *xb = input + (n * cin + ci0) * hw;
		const int nci = cin - ci0 < FCI ? (int)(cin - ci0) : FCI;
		for (int p = tid; p < XH * XW; p += 256) {
			const int rr = p / XW, cc = p - rr * XW;
			const long long iy = iy0 + rr, ix = ix0 + cc;
			const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
			const float *src = xb + (inside ? iy * w + ix : 0);
			float *dst = &Xs[0][rr][cc];
#pragma unroll
			for (int ci = 0; ci < FCI; ci++)
				dst[ci * (XH * XP)] = (inside && ci < nci) ? src[ci * hw] : 0.0f;
		}
		// weights of channels co0 .. co0 + 31 and ci0 .. ci0 + 15 (0 past cout and cin): thread
		// (co = tid / 8, kp = tid % 8) copies k = kp + 8 j (k = ci * 9 + tap) of its channel
		{
			const int co = tid >> 3, kp = tid & 7;
			const bool co_ok = co0 + co < cout;
			const float *wsrc = weight + (co_ok ? ((co0 + co) * cin + ci0) * 9 : 0);
			const int kmax = nci * 9;
#pragma unroll
			for (int j = 0; j < FCI * 9 / 8; j++) {
				const int k = kp + 8 * j;
				Ws[k][co] = (co_ok && k < kmax) ? wsrc[k] : 0.0f;
			}
		}
		__syncthreads();

		const long long left = cin - ci0;
		const int npairs = left >= FCI ? FCI / 2 : (int)((left + 1) / 2); // a lone last channel pairs with a zero one
		for (int cp = 0; cp < npairs; cp++) {
			float part[4][8];
#pragma unroll
			for (int s = 0; s < 2; s++) {
				const int ci = 2 * cp + s;
#pragma unroll
				for (int ky = 0; ky < 3; ky++) {
					const float *xrow = &Xs[ci][r + ky][q * 8];
					const float4 x0 = *reinterpret_cast<const float4 *>(xrow);
					const float4 x1 = *reinterpret_cast<const float4 *>(xrow + 4);
					const float2 x2 = *reinterpret_cast<const float2 *>(xrow + 8);
					const float xr[10] = { x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w, x2.x, x2.y };
#pragma unroll
					for (int kx = 0; kx < 3; kx++) {
						const float4 wv = *reinterpret_cast<const float4 *>(&Ws[ci * 9 + ky * 3 + kx][cg * 4]);
						const float wa[4] = { wv.x, wv.y, wv.z, wv.w };
#pragma unroll
						for (int i = 0; i < 4; i++)
#pragma unroll
							for (int j = 0; j < 8; j++) {
								if (s == 0 && ky == 0 && kx == 0)
									part[i][j] = wa[i] * xr[j + kx];
								else
									part[i][j] = fmaf(wa[i], xr[j + kx], part[i][j]);
							}
					}
				}
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] += part[i][j];
		}
	}

	// ---- epilogue: bias, GELU, store
	const long long oy = oy0 + r, ox = ox0 + q * 8;
	if (oy >= oh)
		return;
	const bool vec = (ow % 4) == 0 && ((unsigned long long)y % 16) == 0 && ox + 8 <= ow;
#pragma unroll
	for (int i = 0; i < 4; i++) {
		const long long co = co0 + cg * 4 + i;
		if (co >= cout)
			continue;
		const float b = has_bias ? bias[co] : 0.0f;
		float o[8];
#pragma unroll
		for (int j = 0; j < 8; j++)
			o[j] = gelu_one(has_bias ? acc[i][j] + b : acc[i][j], approximate);
		float *yrow = y + ((n * cout + co) * oh + oy) * ow;
		if (vec) {
			*reinterpret_cast<float4 *>(yrow + ox) = make_float4(o[0], o[1], o[2], o[3]);
			*reinterpret_cast<float4 *>(yrow + ox + 4) = make_float4(o[4], o[5], o[6], o[7]);
		} else {
#pragma unroll
			for (int j = 0; j < 8; j++)
				if (ox + j < ow)
					yrow[ox + j] = o[j];
		}
	}
}
