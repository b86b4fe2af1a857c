// Fusion/fused_avg_pool2d_cosine_similarity: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 14/14 outputs pass (max err 8.9e-08); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 2.9 ms
// against 8.3 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Why the reference is slow at the perf sizes (x1, x2: 16 x 64 x 1024 x 1024 f32, 8.6 GB): cos_sim
// gives each thread one pixel and walks the 64 channels twice (norms, then the normalised
// products). Between a thread's two passes the resident threads of the GPU touch ~140 MB, more
// than the 50 MB L2, so the second pass comes from DRAM again: ~17 GB of traffic instead of 8.6.
// Every load is a dependent scalar load in a serial loop (little memory-level parallelism), and the
// accumulation is f64 per element.
//
// This version, stage 1 (cos_sim_tiles): one pass. A block of 256 threads takes a tile of 128
// consecutive pixels of one sample; lane L of warp W owns pixels 4L .. 4L + 3 of the tile and
// channels W, W + 8, W + 16, ...; every load is a float4 (a warp reads 512 contiguous bytes of one
// channel), 4 channels (8 float4, 128 B per thread) are loaded before any arithmetic, with the
// streaming (evict-first) hint so the similarity map stays in L2 for stage 2. Each thread keeps
// sum(x1^2), sum(x2^2) and sum(x1 * x2) for its 4 pixels; the 8 warps' partials are combined
// through shared memory (24 KiB) and 128 threads write the tile's similarities. When H * W is not
// a multiple of 4 (odd test shapes) the same layout uses guarded scalar loads. Stage 2 (pool) is
// the reference's avg_pool2d over the map (one thread per output, same window, same row-order f32
// sum, same divisor), so the map is the only intermediate, 1/128 of the input traffic.
//
// Precision: the similarity is computed as dot / (n1 * n2) with n1 = max(f32(sqrt(sum x1^2)), eps)
// (clamp_min as in the reference: a NaN norm stays NaN, a norm below eps becomes eps, each norm
// separately), instead of the reference's sum of f32(f32(x1 / n1) * f32(x2 / n2)). Products are
// accumulated in f32 (FMA) over groups of at most 4 channels, the group sums in f64 per thread, the
// 8 warps' partials in f64; sqrt and the final division in f64, rounded once to f32. Error of the
// dot and the squared norms: <= ~5 ulp(f32) of sum |x1 x2| <= n1 * n2, i.e. the similarity is within
// ~4e-7 of the exact value; the reference's per-term roundings put it within ~2e-7: the two differ
// by < 1e-6, far below atol = rtol = 1e-5 (the pooled mean of 9 values keeps that bound). NaN / inf:
// a NaN or inf channel makes a squared norm NaN / inf, so n1 or n2 is NaN / inf and the dot is NaN
// or +-inf: the quotient is NaN, as in the reference (inf / inf). An all-zero x1 gives n1 = eps,
// dot = 0: 0. Like PyTorch's f32 norm (and unlike the reference's f64), squares of |x| > 1.8e19
// overflow; no case has such values (the task excludes them).
//
// Expected at the largest row (H = W = 1024): the task's bytes = (2 * 16 * 64 * 1024^2 + 512^2) * 4
// = 8.591 GB. Real traffic: 8.590 GB read + 64 MB map written + 64 MB map read (partly from L2)
// + 16 MB written = ~8.73 GB; at the calibrated 4253 GB/s that is 2.05 ms -> 4190 GB/s (98%);
// at 92% of copy bandwidth for the read stream, ~2.23 ms -> ~3850 GB/s (90%). Reference: 6.04 ms.
//
// @kbx scratch cosine_similarity f32 [n, h, w]
// @kbx launch cos_sim_tiles<<<max(1, min(n * cdiv(h * w, 128), 1048576)), 256>>>(x1, x2, cosine_similarity, n, c, i64(h * w), eps)
// @kbx launch pool<<<max(1, min(cdiv(n * ho * wo, 256), 65536)), 256>>>(cosine_similarity, y, n, h, w, ho, wo, kernel_size, stride, padding)

#define KBX_PX 128 // pixels per tile
#define KBX_NW 8   // warps per block = channel groups

extern "C" __global__ void __launch_bounds__(256)
cos_sim_tiles(const float* __restrict__ x1, const float* __restrict__ x2, float* __restrict__ cs, long long n,
              long long c, long long hw, float eps)
{
	__shared__ double red[3][KBX_NW][KBX_PX]; // 24 KiB
	const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
	const long long tps = (hw + KBX_PX - 1) / KBX_PX;
	const long long tiles = n * tps;
	const bool vec = (hw & 3) == 0;
	for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
		const long long s = t / tps;
		const long long tp0 = (t - s * tps) * KBX_PX; // first pixel of the tile
		const long long p0 = tp0 + lane * 4;          // this lane's first pixel
		double d11[4] = {0.0, 0.0, 0.0, 0.0}, d22[4] = {0.0, 0.0, 0.0, 0.0}, d12[4] = {0.0, 0.0, 0.0, 0.0};
		if (p0 < hw) {
			const long long base = s * c * hw + p0;
			if (vec) { // p0 % 4 == 0 and p0 + 3 < hw; every channel row starts 16-byte aligned
				const float* a = x1 + base;
				const float* b = x2 + base;
				long long k = wid;
				for (; k + 3 * KBX_NW < c; k += 4 * KBX_NW) {
					float4 va[4], vb[4];
#pragma unroll
					for (int u = 0; u < 4; u++) {
						va[u] = __ldcs(reinterpret_cast<const float4*>(a + (k + u * KBX_NW) * hw));
						vb[u] = __ldcs(reinterpret_cast<const float4*>(b + (k + u * KBX_NW) * hw));
					}
					float f11[4] = {0.0f, 0.0f, 0.0f, 0.0f}, f22[4] = {0.0f, 0.0f, 0.0f, 0.0f},
					      f12[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
					for (int u = 0; u < 4; u++) {
						const float ea[4] = {va[u].x, va[u].y, va[u].z, va[u].w};
						const float eb[4] = {vb[u].x, vb[u].y, vb[u].z, vb[u].w};
#pragma unroll
						for (int j = 0; j < 4; j++) {
							f11[j] = fmaf(ea[j], ea[j], f11[j]);
							f22[j] = fmaf(eb[j], eb[j], f22[j]);
							f12[j] = fmaf(ea[j], eb[j], f12[j]);
						}
					}
#pragma unroll
					for (int j = 0; j < 4; j++) {
						d11[j] += (double)f11[j];
						d22[j] += (double)f22[j];
						d12[j] += (double)f12[j];
					}
				}
				for (; k < c; k += KBX_NW) {
					const float4 va = __ldcs(reinterpret_cast<const float4*>(a + k * hw));
					const float4 vb = __ldcs(reinterpret_cast<const float4*>(b + k * hw));
					const float ea[4] = {va.x, va.y, va.z, va.w};
					const float eb[4] = {vb.x, vb.y, vb.z, vb.w};
#pragma unroll
					for (int j = 0; j < 4; j++) {
						d11[j] += (double)ea[j] * (double)ea[j];
						d22[j] += (double)eb[j] * (double)eb[j];
						d12[j] += (double)ea[j] * (double)eb[j];
					}
				}
			} else { // H * W not a multiple of 4: guarded scalar loads, one channel at a time
				for (long long k = wid; k < c; k += KBX_NW) {
					const float* a = x1 + base + k * hw;
					const float* b = x2 + base + k * hw;
#pragma unroll
					for (int j = 0; j < 4; j++) {
						if (p0 + j < hw) {
							const float ea = a[j], eb = b[j];
							d11[j] += (double)ea * (double)ea;
							d22[j] += (double)eb * (double)eb;
							d12[j] += (double)ea * (double)eb;
						}
					}
				}
			}
		}
#pragma unroll
		for (int j = 0; j < 4; j++) {
			red[0][wid][lane * 4 + j] = d11[j];
			red[1][wid][lane * 4 + j] = d22[j];
			red[2][wid][lane * 4 + j] = d12[j];
		}
		__syncthreads();
		if (threadIdx.x < KBX_PX) {
			const long long p = tp0 + threadIdx.x;
			if (p < hw) {
				double s11 = 0.0, s22 = 0.0, s12 = 0.0;
#pragma unroll
				for (int w = 0; w < KBX_NW; w++) {
					s11 += red[0][w][threadIdx.x];
					s22 += red[1][w][threadIdx.x];
					s12 += red[2][w][threadIdx.x];
				}
				float n1 = (float)sqrt(s11), n2 = (float)sqrt(s22);
				n1 = n1 < eps ? eps : n1; // clamp_min: a NaN norm stays NaN
				n2 = n2 < eps ? eps : n2;
				cs[s * hw + p] = (float)(s12 / ((double)n1 * (double)n2));
			}
		}
		__syncthreads(); // red is reused by the next tile
	}
}

extern "C" __global__ void __launch_bounds__(256)
pool(const float* __restrict__ x, float* __restrict__ y, long long n, long long h, long long w, long long ho,
     long long wo, long long k, long long stride, long long pad)
{
	const long long total = n * ho * wo;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long q = i / wo, ow = i - q * wo;
		const long long s = q / ho, oh = q - s * ho;
		long long h0 = oh * stride - pad, w0 = ow * stride - pad;
		long long h1 = min(h0 + k, h + pad), w1 = min(w0 + k, w + pad);
		const long long size = (h1 - h0) * (w1 - w0);
		h0 = max(h0, 0LL);
		w0 = max(w0, 0LL);
		h1 = min(h1, h);
		w1 = min(w1, w);
		const float* xs = x + s * h * w;
		float sum = 0.0f;
		for (long long r = h0; r < h1; r++)
			for (long long col = w0; col < w1; col++)
				sum += xs[r * w + col];
		y[i] = sum / (float)size;
	}
}
