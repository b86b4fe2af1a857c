// Loss/cross_entropy: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 26/26 outputs pass (max err 3.1e-05); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 0.2 ms
// against 0.5 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Why the reference is slow at the perf sizes (input [n, 1000] f32, n = 2^8..2^15, mean): it
// measured 0.514 ms over the eight rows (golden 0.311 ms) and 1573 GB/s at n = 32768 (37% of the
// 4245 GB/s copy bandwidth). ce_rows launches only cdiv(n, 64) blocks (4 blocks at n = 256), so
// each warp walks 8 rows one after another, and per row it runs two serial loops of ~32 scalar
// loads per lane (the max, then the exponentials from L1/L2): latency bound at every size.
//
// This version: ce_rows_fast gives each warp one row at a time from a grid of cdiv(n * s, 8)
// blocks of 8 warps (at most 1024 blocks, grid-stride beyond; 80 registers under
// __launch_bounds__(256, 3), no spills: 24 warps per SM). When s = 1, c % 4 == 0 and
// c <= 1024 (the perf rows), the warp loads the whole row into registers at once: lane l takes
// the float4s l, l + 32, ... (8 per lane, 16-byte coalesced loads, streaming cache hint), together
// with the target, then reads x[t] once from L1/L2. The max and the sum of exponentials come
// from the registers, so the row is read from DRAM exactly once and a warp has 4 KB in flight.
// Any other shape (s > 1, c % 4 != 0, c > 1024) takes the reference's loops unchanged. The
// (loss, weight) sums per block and ce_final are the reference's (f64, no atomics).
//
// Precision: the same formula and types as the reference: max and x - mx in f32 with the same
// NaN-sticky max, expf of each f32 difference widened to f64 and summed in f64, log and loss in
// f64, rounded to f32 once. Only the order of the f64 sums differs (each lane sums its 4-element
// groups instead of every 32nd class; the per-block and final sums see the rows in another
// grouping): a relative change of ~1e-16 before the one f32 rounding, so 'none' losses are
// bit-identical to the reference except where a value sits within ~1e-16 of an f32 rounding
// boundary (then 1 ulp), and mean / sum within 1 ulp; the tolerance is 1e-5. Special values go
// through the same expressions: +inf or NaN logits give NaN, -inf at the target an infinite loss,
// an all -inf row NaN, (-3e38) - 3e38 = -inf in f32.
//
// Expected at n = 32768: 131 MB of logits + 0.26 MB of targets read once: ~31 us at the copy
// bandwidth, ~35-40 us with the launch, the exponentials (1000 expf + f64 adds per row, about
// half the memory time in issue slots, overlapped) and ce_final; the reference took ~83 us.
// The small rows (n = 256..4096) drop from tens of us to a few us (one load round trip per warp
// plus two launches).
//
// Checked (not yet run on a GPU): compiled and ABI-checked with kbx (verdict not_run, no device);
// ptxas: 80 registers, no spills. A numpy emulation of both kernels (blocks, warps, lanes, the
// float4 register layout, the grid-stride rows, the shuffle trees in their order, f32 expf, f64
// sums, block_sum2 and ce_final) against an emulation of the reference on every case of task.ini
// (weights, ignore_index, every reduction, all ignored, empty, special values, c = 1009 and s > 1
// through the generic path; long_mean at 301 rows), on c = 8 and c = 1024 'none' cases and on the
// perf shape at n = 256: every output bit-identical to the reference model, NaN / inf included.
//
// @kbx scratch part f64 [2 * max(1, min(cdiv(n * s, 8), 1024))]
// @kbx launch ce_rows_fast<<<max(1, min(cdiv(n * s, 8), 1024)), 256>>>(input, target, weight, y, part, n, c, s, cw, ignore_index, reduction)
// @kbx launch ce_final<<<1, 256>>>(part, y, i64(max(1, min(cdiv(n * s, 8), 1024))), reduction)

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define VEC 8 /* float4s per lane in the register path: rows of up to 32 * 4 * VEC = 1024 classes */

// Sums of u and v over the block (blockDim.x == BLOCK); the results are valid in thread 0.
__device__ __forceinline__ void block_sum2(double &u, double &v)
{
	__shared__ double su[WARPS], sv[WARPS];
	for (int off = 16; off > 0; off >>= 1) {
		u += __shfl_down_sync(0xffffffffu, u, off);
		v += __shfl_down_sync(0xffffffffu, v, off);
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		su[warp] = u;
		sv[warp] = v;
	}
	__syncthreads();
	u = (threadIdx.x < WARPS) ? su[threadIdx.x] : 0.0;
	v = (threadIdx.x < WARPS) ? sv[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1) {
			u += __shfl_down_sync(0xffffffffu, u, off);
			v += __shfl_down_sync(0xffffffffu, v, off);
		}
}

/* PyTorch's max: NaN sticks */
static __device__ __forceinline__ float nanmax(float a, float v)
{
	return (v > a || v != v) ? v : a;
}

extern "C" __global__ void __launch_bounds__(BLOCK, 3)
ce_rows_fast(const float *__restrict__ input, const long long *__restrict__ target, const float *__restrict__ weight,
	     float *__restrict__ y, double *__restrict__ part, long long n, long long c, long long s, long long cw,
	     long long ignore_index, int reduction)
{
	const int lane = threadIdx.x & 31;
	const long long positions = n * s;
	const bool regs = s == 1 && (c & 3) == 0 && c <= 32 * 4 * VEC; /* uniform over the launch */
	const int c4 = (int)(c >> 2);
	double loss_sum = 0.0, w_sum = 0.0; /* lane 0's running sums */

	for (long long pos = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5); pos < positions;
	     pos += (long long)gridDim.x * WARPS) {
		const long long i = pos / s, q = pos % s;
		const long long t = target[pos];
		const float *row = input + i * c * s + q; /* &x[i, 0, q], classes s apart */
		float mx = -__int_as_float(0x7f800000);
		double sum = 0.0;
		float xt = 0.0f;
		if (regs) {
			const float4 *row4 = reinterpret_cast<const float4 *>(row);
			float4 v[VEC];
#pragma unroll
			for (int j = 0; j < VEC; j++)
				if (lane + 32 * j < c4)
					v[j] = __ldcs(row4 + lane + 32 * j);
			if (t == ignore_index) {
				if (reduction == 0 && lane == 0)
					y[pos] = 0.0f;
				continue;
			}
			xt = row[t];
#pragma unroll
			for (int j = 0; j < VEC; j++)
				if (lane + 32 * j < c4) {
					mx = nanmax(mx, v[j].x);
					mx = nanmax(mx, v[j].y);
					mx = nanmax(mx, v[j].z);
					mx = nanmax(mx, v[j].w);
				}
			for (int off = 16; off > 0; off >>= 1)
				mx = nanmax(mx, __shfl_xor_sync(0xffffffffu, mx, off));
#pragma unroll
			for (int j = 0; j < VEC; j++)
				if (lane + 32 * j < c4) {
					sum += (double)expf(v[j].x - mx);
					sum += (double)expf(v[j].y - mx);
					sum += (double)expf(v[j].z - mx);
					sum += (double)expf(v[j].w - mx);
				}
		} else { /* the reference's loops */
			if (t == ignore_index) {
				if (reduction == 0 && lane == 0)
					y[pos] = 0.0f;
				continue;
			}
			for (long long k = lane; k < c; k += 32)
				mx = nanmax(mx, row[k * s]);
			for (int off = 16; off > 0; off >>= 1)
				mx = nanmax(mx, __shfl_xor_sync(0xffffffffu, mx, off));
			for (long long k = lane; k < c; k += 32)
				sum += (double)expf(row[k * s] - mx);
			if (lane == 0)
				xt = row[t * s];
		}
		for (int off = 16; off > 0; off >>= 1)
			sum += __shfl_xor_sync(0xffffffffu, sum, off);
		if (lane == 0) {
			double w = cw > 0 ? (double)weight[t] : 1.0;
			double logp = (double)(xt - mx) - log(sum);
			double loss = -(w * logp);
			if (reduction == 0)
				y[pos] = (float)loss;
			loss_sum += loss;
			w_sum += w;
		}
	}
	if (reduction == 0)
		return;
	block_sum2(loss_sum, w_sum);
	if (threadIdx.x == 0) {
		part[2 * blockIdx.x] = loss_sum;
		part[2 * blockIdx.x + 1] = w_sum;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
ce_final(const double *__restrict__ part, float *__restrict__ y, long long chunks, int reduction)
{
	if (reduction == 0)
		return;
	double loss_sum = 0.0, w_sum = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK) {
		loss_sum += part[2 * p];
		w_sum += part[2 * p + 1];
	}
	block_sum2(loss_sum, w_sum);
	if (threadIdx.x == 0)
		y[0] = (float)(reduction == 1 ? loss_sum / w_sum : loss_sum);
}
