// @kbx expect pass
// Why the reference is slow at the perf sizes (32 x 32 x 2944 f32, kernel 3 = stride, no padding):
// it runs two kernels and keeps cos(x) in a scratch buffer of the input's size, so one call moves
// 12 MB (read x) + 12 MB (write cos) + 12 MB (read cos) + 4 MB (write y) = 40 MB and pays two
// launches; the pooling kernel also reads 3 scalars per thread with a stride of 3 floats.
//
// This kernel: one launch, no intermediate buffer. A block takes a tile of up to 1024 consecutive
// outputs of one row (at the perf sizes: one whole row, 981 outputs, 1024 blocks), loads the
// input span those windows cover with aligned, coalesced float4 loads (scalar head / tail of at
// most 3 elements each; all of a thread's float4 loads are issued before any cosf, so ~3-4 loads
// are in flight per thread), stores cosf of each element once in shared memory, then each thread
// sums its windows from shared memory (stride-3 reads: conflict-free) and writes one output per
// window, coalesced. Overlapping windows (stride < kernel) share the staged values instead of
// recomputing them. The tile size adapts so the span ((to - 1) * stride + kernel + 3 floats) fits
// in the 16 KiB buffer; a kernel_size > 4093 (never in the cases) falls back to a direct
// per-output loop. DRAM traffic: 12.06 MB read + 4.02 MB written = 16.1 MB.
//
// Precision: identical to the reference, bit for bit: the same cosf (CUDA's accurate cosine, no
// fast math), the same window bounds (cut at l + padding for pool_size, clipped to [0, l)), the
// same f32 sum in increasing index order, the same divisor and the same 0 for an empty window.
//
// Expected at the largest row (l = 2944, lo = 981): the task's bytes = (2 * 1024 * 2944 + 1024 *
// 981) * 4 = 28.14 MB. 16.1 MB of real traffic at ~3.5-4 TB/s is ~4-4.6 us, plus ~1.5-2 us of
// launch and ramp inside the events: ~6-6.5 us -> ~4300-4700 "GB/s" by the task's formula (which
// counts the input twice), ~100% of 4253; even at 7.5 us it is 3750 GB/s (88%). Reference: ~21 us.
//
// @kbx launch cos_pool_tiles<<<max(1, min(n * c * cdiv(lo, 1024), 65536)), 256>>>(x, y, i64(n * c), l, lo, kernel_size, stride, padding, count_include_pad)

#define KBX_TO 1024   // outputs per tile at most
#define KBX_CAP 4096  // staged floats per block (16 KiB)
#define KBX_NT 256

extern "C" __global__ void __launch_bounds__(KBX_NT)
cos_pool_tiles(const float* __restrict__ x, float* __restrict__ y, long long rows, long long l, long long lo,
               long long k, long long stride, long long pad, int count_include_pad)
{
	__shared__ __align__(16) float buf[KBX_CAP];
	const int tid = threadIdx.x;

	if (k + 3 > KBX_CAP) {
		// fallback (huge windows): one output per thread, cosf on the fly, same arithmetic
		const long long total = rows * lo;
		for (long long i = (long long)blockIdx.x * KBX_NT + tid; i < total; i += (long long)gridDim.x * KBX_NT) {
			const long long row = i / lo, o = i % lo;
			long long st = o * stride - pad;
			long long en = min(st + k, l + pad);
			const long long pool = en - st;
			st = max(st, 0LL);
			en = min(en, l);
			if (st >= en) {
				y[i] = 0.0f;
				continue;
			}
			const float* xr = x + row * l;
			float sum = 0.0f;
			for (long long t = st; t < en; t++)
				sum += cosf(xr[t]);
			y[i] = sum / (float)(count_include_pad ? pool : en - st);
		}
		return;
	}

	long long to = (KBX_CAP - 3 - k) / stride + 1; // (to - 1) * stride + k + 3 <= KBX_CAP
	if (to > KBX_TO)
		to = KBX_TO;
	const long long tpr = (lo + to - 1) / to;
	const long long tiles = rows * tpr;
	for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
		const long long row = t / tpr;
		const long long o0 = (t - row * tpr) * to;
		const long long o1 = min(o0 + to, lo);
		// input span of windows o0 .. o1 - 1, clipped to [0, l)
		const long long s0 = max(o0 * stride - pad, 0LL);
		const long long e0 = min(min((o1 - 1) * stride - pad + k, l + pad), l);
		const long long gbase = row * l;
		const long long gs = gbase + s0, ge = gbase + max(e0, s0);
		const long long gal = gs & ~3LL;       // buf[j] holds cos(x[gal + j])
		const long long qa = (gs + 3) & ~3LL;  // first aligned element at or after gs
		if (ge <= qa) {
			if (tid < ge - gs)
				buf[gs - gal + tid] = cosf(x[gs + tid]);
		} else {
			const long long qe = ge & ~3LL; // qe >= qa
			if (tid < qa - gs)
				buf[gs - gal + tid] = cosf(x[gs + tid]);
			if (tid < ge - qe)
				buf[qe - gal + tid] = cosf(x[qe + tid]);
			const int nq = (int)((qe - qa) >> 2);
			const float4* x4 = reinterpret_cast<const float4*>(x + qa);
			float4* b4 = reinterpret_cast<float4*>(buf + (qa - gal));
			for (int q0 = 0; q0 < nq; q0 += 4 * KBX_NT) {
				float4 v[4];
#pragma unroll
				for (int u = 0; u < 4; u++) {
					const int q = q0 + u * KBX_NT + tid;
					if (q < nq)
						v[u] = __ldcs(x4 + q);
				}
#pragma unroll
				for (int u = 0; u < 4; u++) {
					const int q = q0 + u * KBX_NT + tid;
					if (q < nq) {
						float4 r;
						r.x = cosf(v[u].x);
						r.y = cosf(v[u].y);
						r.z = cosf(v[u].z);
						r.w = cosf(v[u].w);
						b4[q] = r;
					}
				}
			}
		}
		__syncthreads();
		const long long boff = gal - gbase; // buf[j - boff] = cos(x[row * l + j]) for j in [s0, e0)
		float* yr = y + row * lo;
		for (long long o = o0 + tid; o < o1; o += KBX_NT) {
			long long st = o * stride - pad;
			long long en = min(st + k, l + pad);
			const long long pool = en - st;
			st = max(st, 0LL);
			en = min(en, l);
			if (st >= en) {
				yr[o] = 0.0f;
				continue;
			}
			float sum = 0.0f;
			for (long long j = st; j < en; j++)
				sum += buf[j - boff];
			yr[o] = sum / (float)(count_include_pad ? pool : en - st);
		}
		__syncthreads(); // buf is reused by the next tile
	}
}
