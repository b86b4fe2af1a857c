// Index/permute_copy: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 17/17 outputs pass (max err 0); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 0.6 ms
// against 1.5 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Why the reference is slow at the perf sizes (x [s, s, s, s] f32, dims [3, 2, 1, 0], s = 8..128):
// it measured 1.451 ms over the five rows (golden 0.562 ms) and 1658 GB/s at s = 128 (39% of the
// 4245 GB/s copy bandwidth). Its 32 x 32 tiles are right in principle, but each block runs its
// tiles strictly one after another (load, sync, store, sync), decodes every tile with 64-bit
// divisions in every thread, and keeps at most 4 loads of 4 bytes per thread in flight: the
// memory pipe is idle for much of each tile's round trip.
//
// This version keeps the reference's two regimes. p3 == 3 (the inner dim stays inner) is the
// reference's coalesced row copy, unchanged (no perf row uses it). Otherwise a 64 x 64 tile over
// output dims (q, 3) (q: the output dim that is the input's contiguous dim 3) goes through shared
// memory [64][65]: loads with consecutive threads along output dim q (input stride 1: each warp
// load is 128 contiguous bytes, two of them a 256-byte run of one input row), stores with
// consecutive threads along output dim 3 (output stride 1, again 256-byte runs); both shared
// memory phases are bank-conflict free (row stride 65). Each of the 256 threads moves 16 elements
// per tile. Blocks take tiles grid-stride and software-pipeline them: the 16 loads of the next
// tile are issued into registers before the current tile is stored from shared memory, so every
// block has a tile's reads in flight while it writes. Tile coordinates are decoded with 32-bit
// divisions when the tile count and the sizes fit (always at the perf rows), else in 64 bits.
// Grid: min(cdiv(n, 64), 4 * sms) blocks of 256 threads (4 resident per SM under
// __launch_bounds__(256, 4)): at s = 8 one block per tile, at s = 128 (65536 full tiles) 124
// tiles per block.
//
// A copy: bit-exact (every output element is written once from its one input element, as float
// loads and stores, which keep NaN payloads and -0).
//
// Expected at s = 128: 2 * 4 * 2^28 = 2.147 GB moved in runs of 256 bytes; at 85-90% of the copy
// bandwidth that is 0.56-0.60 ms (3600-3800 GB/s) against the reference's 1.295 ms. At s = 64
// (134 MB, 4096 tiles of 64 x 64) ~40 us; s = 8..32 are launch and latency bound (a few us each).
//
// Checked (not yet run on a GPU): compiled and ABI-checked with kbx (verdict not_run, no device);
// a numpy emulation of this kernel (blocks, the pipelined tile loop, the 256 threads' load and
// store index sets, the shared-memory tile, the 32-bit decode) reproduces x.transpose(p) exactly
// on every case of task.ini (all permutations there, partial tiles, the empty and size-1 cases),
// on all 24 permutations of a [3, 5, 67, 70] tensor, on [1, 1, 130, 129] and on the perf layout at
// s = 8, 16 and 32, with grid sizes both below and above the tile count; every output element is
// written exactly once (checked by counting writes).
//
// @kbx launch permute_tiles<<<max(1, min(cdiv(d0 * d1 * d2 * d3, 64), 4 * sms)), 256>>>(x, y, d0, d1, d2, d3, p0, p1, p2, p3)

#define T 64

/* v[i] without a local-memory array (i in 0..3) */
static __device__ __forceinline__ long long pick(int i, long long v0, long long v1, long long v2, long long v3)
{
	return i == 0 ? v0 : (i == 1 ? v1 : (i == 2 ? v2 : v3));
}

extern "C" __global__ void __launch_bounds__(256, 4)
permute_tiles(const float *__restrict__ x, float *__restrict__ y, long long d0, long long d1, long long d2,
	      long long d3, int p0, int p1, int p2, int p3)
{
	__shared__ float tile[T][T + 1];
	const long long sx0 = d1 * d2 * d3, sx1 = d2 * d3;
	long long ys[4], st[4], ystr[4];
	ys[0] = pick(p0, d0, d1, d2, d3); /* output sizes */
	ys[1] = pick(p1, d0, d1, d2, d3);
	ys[2] = pick(p2, d0, d1, d2, d3);
	ys[3] = pick(p3, d0, d1, d2, d3);
	st[0] = pick(p0, sx0, sx1, d3, 1); /* input stride of output dim k */
	st[1] = pick(p1, sx0, sx1, d3, 1);
	st[2] = pick(p2, sx0, sx1, d3, 1);
	st[3] = pick(p3, sx0, sx1, d3, 1);
	ystr[3] = 1;
	ystr[2] = ys[3];
	ystr[1] = ys[2] * ys[3];
	ystr[0] = ys[1] * ys[2] * ys[3];
	const long long n = ys[0] * ys[1] * ys[2] * ys[3];

	if (p3 == 3) { /* the reference's row copy */
		for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
		     e += (long long)gridDim.x * blockDim.x) {
			long long i3 = e % ys[3], r = e / ys[3];
			long long i2 = r % ys[2];
			r /= ys[2];
			long long i1 = r % ys[1], i0 = r / ys[1];
			y[e] = x[i0 * st[0] + i1 * st[1] + i2 * st[2] + i3];
		}
		return;
	}

	const int q = p0 == 3 ? 0 : (p1 == 3 ? 1 : 2);
	const int r = q == 0 ? 1 : 0; /* the two other output dims, r < s, both below 3 */
	const int s = q == 2 ? 1 : 2;
	const long long yq = pick(q, ys[0], ys[1], ys[2], 0), y3 = ys[3];
	const long long ysr = pick(r, ys[0], ys[1], 0, 0), yss = pick(s, 0, ys[1], ys[2], 0);
	const long long st3 = st[3], str = pick(r, st[0], st[1], 0, 0), sts = pick(s, 0, st[1], st[2], 0);
	const long long ysq = pick(q, ystr[0], ystr[1], ystr[2], 0); /* output strides */
	const long long ystrr = pick(r, ystr[0], ystr[1], 0, 0), ystrs = pick(s, 0, ystr[1], ystr[2], 0);
	const long long tq = (yq + T - 1) / T, t3 = (y3 + T - 1) / T;
	const long long tiles = tq * t3 * ysr * yss;
	const bool small = tiles <= 0xffffffffLL && yss <= 0xffffffffLL;
	const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;

	long long t = blockIdx.x;
	if (t >= tiles)
		return;

	float v[16];
	long long bq, b3;
	const float *src;
	float *dst;
	/* tile t: bq (along output dim q) varies fastest, then b3, then (ir, is) */
#define DECODE(tt)                                                                                  \
	do {                                                                                        \
		long long a, b, ir, is;                                                             \
		if (small) {                                                                        \
			const unsigned int u = (unsigned int)(tt), uq = (unsigned int)tq;          \
			const unsigned int u1 = u / uq, u2 = u1 / (unsigned int)t3;                \
			a = u - u1 * uq;                                                            \
			b = u1 - u2 * (unsigned int)t3;                                             \
			const unsigned int us = (unsigned int)yss, u3 = u2 / us;                   \
			ir = u3;                                                                    \
			is = u2 - u3 * us;                                                          \
		} else {                                                                            \
			a = (tt) % tq;                                                              \
			const long long w1 = (tt) / tq;                                             \
			b = w1 % t3;                                                                \
			const long long w2 = w1 / t3;                                               \
			ir = w2 / yss;                                                              \
			is = w2 % yss;                                                              \
		}                                                                                   \
		bq = a * T;                                                                         \
		b3 = b * T;                                                                         \
		src = x + ir * str + is * sts;                                                      \
		dst = y + ir * ystrr + is * ystrs;                                                  \
	} while (0)
	/* v[2 jj + h] = element (iq = bq + tx + 32 h, i3 = b3 + ty + 8 jj) */
#define LOAD()                                                                                      \
	do {                                                                                        \
		_Pragma("unroll") for (int jj = 0; jj < 8; jj++)                                    \
		{                                                                                   \
			const long long i3 = b3 + ty + 8 * jj;                                      \
			const float *row = src + i3 * st3;                                          \
			_Pragma("unroll") for (int h = 0; h < 2; h++)                               \
			{                                                                           \
				const long long iq = bq + tx + 32 * h;                              \
				v[2 * jj + h] = (i3 < y3 && iq < yq) ? row[iq] : 0.0f;             \
			}                                                                           \
		}                                                                                   \
	} while (0)

	DECODE(t);
	LOAD();
	do {
		/* tile[a][b] = element (i3 = b3 + a, iq = bq + b) */
#pragma unroll
		for (int jj = 0; jj < 8; jj++)
#pragma unroll
			for (int h = 0; h < 2; h++)
				tile[ty + 8 * jj][tx + 32 * h] = v[2 * jj + h];
		__syncthreads();
		const long long cbq = bq, cb3 = b3;
		float *const cdst = dst;
		const long long tn = t + gridDim.x;
		if (tn < tiles) { /* the next tile's loads go out before this tile's stores */
			DECODE(tn);
			LOAD();
		}
#pragma unroll
		for (int jj = 0; jj < 8; jj++) {
			const long long iq = cbq + ty + 8 * jj;
			float *row = cdst + iq * ysq;
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const long long i3 = cb3 + tx + 32 * h;
				if (iq < yq && i3 < y3)
					row[i3] = tile[tx + 32 * h][ty + 8 * jj];
			}
		}
		if (tn < tiles)
			__syncthreads(); /* uniform over the block */
		t = tn;
	} while (t < tiles);
#undef DECODE
#undef LOAD
}
