// Fusion/fused_softmax_log: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 14/14 outputs pass (max err 6e-08); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 4.2 ms
// against 11.9 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Faster version: logf, softmax and the store in one cooperative kernel; each row is read once from
// DRAM into shared memory (split over several blocks when it is long) and written once.
//
// What the reference does, and why it is slow at the perf sizes (x = rand(1024, c), c = 2^4 ..
// 2^19, dim -1): log_k writes the whole `log` tensor, then softmax_rows reads it twice (online
// max / sum pass, then the output pass) and writes y: 5 passes over the tensor instead of 2, plus
// two or three f64 exp per element (the online merge calls exp twice per element in f64). Measured
// on an H200 (kbx sweep, 2026-12-01): 11.858 ms summed over the perf rows against PyTorch's
// 6.196 ms; 1487 GB/s by the task's formula (35% of the 4245 GB/s copy bandwidth) at c = 2^19,
// i.e. ~5.8 ms for that row (the formula counts 4 x 2 GiB = 8.6 GB).
//
// What this kernel does (grid = min(2 * sms, items) blocks of 512 threads, 96 KB of dynamic shared
// memory each, two blocks per SM, all resident: cooperative launch):
//  - a row (any d: the row j, l of the [b, c, d] view at stride d) is cut into G = cdiv(c, 24576)
//    chunks of L <= 24576 elements (L a multiple of 4); item w = row * G + chunk, and block i takes
//    the items i, i + gridDim, ... in order;
//  - per item: load the chunk (16-byte streaming loads, four in flight per thread, when d = 1,
//    c % 4 = 0 and the pointers are aligned; scalar strided loads otherwise), v = logf(x) (NVRTC's
//    logf, as the reference's log_k) into shared memory and the chunk's NaN-propagating max; block
//    max; e = expf(v - max) in place and its sum in f64; block sum; y = e * f32(1 / sum), stored
//    once (streaming). Only the chunk is re-read, from shared memory.
//  - G > 1 (c > 24576: the perf rows from 2^15 up): the G blocks of a row exchange their maxima and
//    then their sums through the scratch `row_stats` (f64 per chunk) and meet on per-row counters
//    (`row_count`, zeroed at the start behind the kernel's one grid barrier; each block publishes,
//    __threadfence, atomicAdd, then spins on the counter). Every block of a row combines the G
//    values in chunk order, so all use the same max and sum. No deadlock: all blocks are resident
//    and visit items in increasing order, so the lowest unfinished row always has all its chunks
//    running (needs G <= gridDim.x; rows longer than 2 * sms * 24576 ~ 6.5 M elements, in no case,
//    fall back to one block per row with three passes over global memory, same arithmetic).
//
// Tolerance (rtol = atol = 1e-5; outputs <= 1): the reference rounds once from f64 exp(v - max) /
// sum. Here the log values, the max and hence the special-value behaviour are identical (f32 logf,
// NaN-propagating max: a NaN or +inf in a row makes it NaN, -inf entries get 0, an all-zero row is
// NaN, an empty row or b = 0 writes nothing); the differences are the f32 subtraction v - max, f32
// expf (<= 2 ulp), the f64 sum of f32 terms and one f32 product: a few ulp (< 1e-6 relative).
// Checked against a numpy emulation (not kept) of this kernel (the chunking, the per-thread f64
// partial sums in the kernel's order, the shuffle / warp reduction order, the cross-chunk combine,
// every element written exactly once) and of the reference, on every case of task.ini and on
// rows of 16 .. 2^17 (4 rows) and 2^19 (2 rows) of uniform(0, 1), c = 49156 (G = 2), a strided
// (d = 3) c = 49153 (G = 3, scalar path), c = 24575, and a G = 3 case with NaN, +inf, all-zero rows:
// NaNs in the same places, worst element 2e-3 of the tolerance (max 9 ulp, on tiny outputs), the
// perf-like rows below 1.5e-6 of it. A small simulation of the publish / wait protocol (random
// block order, rows x G x grid = 1024 x 22 x 264 and others) never deadlocks. Not yet run on a GPU.
//
// Expected at c = 2^19: 2 GiB read + 2 GiB written = 4.3 GB; at ~85-90% of the copy rate that is
// ~1.15-1.2 ms against the reference's ~5.8 ms (~5x; 7.2-7.5 TB/s by the task's formula, which
// counts twice the compulsory traffic). The ~40 instructions per element (logf, expf, f64 add)
// are ~0.7 ms of issue at that row, which the two blocks per SM must overlap with the memory
// traffic: if they do not, ~1.5 ms. The G > 1 rows pay one grid barrier and two counter waits per
// row (a few microseconds per round of ~10 rows). Rows up to 2^14 are one block per row, 2-4
// rows per block: a few microseconds, launch-dominated below 2^12. Perf sum ~2.5-3 ms (vs 11.858).
//
// @kbx scratch row_stats f64 [max(1, 2 * b * d * cdiv(c, 24576))]
// @kbx scratch row_count i32 [max(1, 2 * b * d)]
// @kbx launch softmax_log_onchip<<<max(1, min(2 * sms, b * d * cdiv(c, 24576))), 512, 98304>>>(x, y, row_stats, row_count, b, c, d) cooperative

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CH 24576 // floats of a chunk held in shared memory (96 KB of dynamic shared memory)
#define NT 512   // threads per block
#define NW (NT / 32)
#define NEG_INF (-__int_as_float(0x7f800000))

// max that propagates NaN: a NaN v replaces m, and a NaN m stays (v > NaN is false)
static __device__ __forceinline__ float nmax(float m, float v)
{
	return (v != v || v > m) ? v : m;
}

// NaN-propagating max over the block; every thread gets it. red: NW floats of shared memory.
static __device__ float block_max(float m, float *red)
{
	for (int off = 16; off > 0; off >>= 1)
		m = nmax(m, __shfl_xor_sync(0xffffffffu, m, off));
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = m;
	__syncthreads();
	m = red[0];
	for (int w = 1; w < NW; w++)
		m = nmax(m, red[w]);
	__syncthreads(); // red is reused
	return m;
}

// f64 sum over the block in a fixed order; every thread gets the same value.
static __device__ double block_sum(double s, double *red)
{
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = s;
	__syncthreads();
	s = red[0];
	for (int w = 1; w < NW; w++)
		s += red[w];
	__syncthreads();
	return s;
}

// Blocks that hold chunks of the same row meet here: publish this chunk's value, count it in, wait
// until all G chunks of the row are in (every block is resident: cooperative launch). Thread 0 only.
static __device__ __forceinline__ void arrive_and_wait(double *slot, double v, int *count, int G)
{
	*slot = v;
	__threadfence();
	atomicAdd(count, 1);
	while (*(volatile int *)count < G)
		;
	__threadfence();
}

extern "C" __global__ void __launch_bounds__(NT, 2)
softmax_log_onchip(const float *__restrict__ x, float *__restrict__ y, double *__restrict__ stats,
		   int *__restrict__ count, long long b, long long c, long long d)
{
	extern __shared__ __align__(16) float buf[]; // CH floats: the chunk's log, then its exp
	__shared__ float redf[NW];
	__shared__ double redd[NW];
	__shared__ float shm;
	__shared__ double shs;
	const int tid = threadIdx.x;
	const long long rows = b * d;
	if (rows <= 0 || c <= 0)
		return;
	const long long G = (c + CH - 1) / CH; // chunks per row
	if (G > (long long)gridDim.x) {
		// Rows longer than the grid's shared memory (c > 2 * sms * CH, not in the task): one block
		// per row, three passes over global memory with the same arithmetic.
		for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
			const long long j = r / d, l = r % d;
			const float *xr = x + j * c * d + l;
			float *yr = y + j * c * d + l;
			float m = NEG_INF;
			for (long long k = tid; k < c; k += NT)
				m = nmax(m, logf(xr[k * d]));
			m = block_max(m, redf);
			double s = 0.0;
			for (long long k = tid; k < c; k += NT)
				s += (double)expf(logf(xr[k * d]) - m);
			s = block_sum(s, redd);
			const float inv = m == NEG_INF ? __int_as_float(0x7fc00000) : (float)(1.0 / s);
			for (long long k = tid; k < c; k += NT)
				yr[k * d] = expf(logf(xr[k * d]) - m) * inv;
		}
		return;
	}
	// chunk length: a multiple of 4, at most CH; every chunk is non-empty
	const long long L = (((c + G - 1) / G) + 3) / 4 * 4;
	const bool vec = d == 1 && (c & 3) == 0 &&
			 ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
	if (G > 1) { // the row counters start at 0 (scratch is poisoned): zero them, then one grid barrier
		for (long long i = (long long)blockIdx.x * NT + tid; i < 2 * rows; i += (long long)gridDim.x * NT)
			count[i] = 0;
		__threadfence();
		cg::this_grid().sync();
	}
	float4 *buf4 = reinterpret_cast<float4 *>(buf);
	const long long items = rows * G;
	for (long long w = blockIdx.x; w < items; w += gridDim.x) {
		const long long r = w / G, g = w % G;
		const long long j = r / d, l = r % d;
		const long long k0 = g * L;
		const long long len = min(c - k0, L);
		const float *xr = x + j * c * d + l + k0 * d;
		float *yr = y + j * c * d + l + k0 * d;
		// 1. v = logf(x) into shared memory, the chunk's max
		float m = NEG_INF;
		if (vec) {
			const int nq = (int)(len >> 2);
			const float4 *x4 = reinterpret_cast<const float4 *>(xr);
			for (int q0 = tid; q0 < nq; q0 += 4 * NT) {
				float4 v[4];
#pragma unroll
				for (int u = 0; u < 4; u++)
					if (q0 + u * NT < nq)
						v[u] = __ldcs(x4 + q0 + u * NT);
#pragma unroll
				for (int u = 0; u < 4; u++)
					if (q0 + u * NT < nq) {
						float4 lv;
						lv.x = logf(v[u].x);
						lv.y = logf(v[u].y);
						lv.z = logf(v[u].z);
						lv.w = logf(v[u].w);
						buf4[q0 + u * NT] = lv;
						m = nmax(nmax(nmax(nmax(m, lv.x), lv.y), lv.z), lv.w);
					}
			}
		} else {
			for (int i = tid; i < (int)len; i += NT) {
				const float lv = logf(xr[(long long)i * d]);
				buf[i] = lv;
				m = nmax(m, lv);
			}
		}
		m = block_max(m, redf);
		if (G > 1) { // the row's max over its G chunks (the same value in every block of the row)
			if (tid == 0) {
				arrive_and_wait(&stats[2 * w], (double)m, &count[2 * r], (int)G);
				float mm = NEG_INF;
				for (long long q = 0; q < G; q++)
					mm = nmax(mm, (float)__ldcg(&stats[2 * (r * G + q)]));
				shm = mm;
			}
			__syncthreads();
			m = shm;
		}
		// 2. e = expf(v - max) in place, summed in f64 (each thread reads back only what it wrote)
		double s = 0.0;
		if (vec) {
			const int nq = (int)(len >> 2);
			for (int q = tid; q < nq; q += NT) {
				float4 v = buf4[q];
				v.x = expf(v.x - m);
				v.y = expf(v.y - m);
				v.z = expf(v.z - m);
				v.w = expf(v.w - m);
				buf4[q] = v;
				s += (double)v.x;
				s += (double)v.y;
				s += (double)v.z;
				s += (double)v.w;
			}
		} else {
			for (int i = tid; i < (int)len; i += NT) {
				const float e = expf(buf[i] - m);
				buf[i] = e;
				s += (double)e;
			}
		}
		s = block_sum(s, redd);
		if (G > 1) { // the row's sum: the G chunk sums in chunk order (identical in every block)
			if (tid == 0) {
				arrive_and_wait(&stats[2 * w + 1], s, &count[2 * r + 1], (int)G);
				double ss = 0.0;
				for (long long q = 0; q < G; q++)
					ss += __ldcg(&stats[2 * (r * G + q) + 1]);
				shs = ss;
			}
			__syncthreads();
			s = shs;
		}
		// an all -inf row (all zeros) is NaN, as exp(-inf - -inf) in the reference
		const float inv = m == NEG_INF ? __int_as_float(0x7fc00000) : (float)(1.0 / s);
		// 3. y = e * (1 / sum)
		if (vec) {
			const int nq = (int)(len >> 2);
			float4 *y4 = reinterpret_cast<float4 *>(yr);
			for (int q = tid; q < nq; q += NT) {
				float4 v = buf4[q];
				v.x *= inv;
				v.y *= inv;
				v.z *= inv;
				v.w *= inv;
				__stcs(y4 + q, v);
			}
		} else {
			for (int i = tid; i < (int)len; i += NT)
				yr[(long long)i * d] = buf[i] * inv;
		}
	}
}
