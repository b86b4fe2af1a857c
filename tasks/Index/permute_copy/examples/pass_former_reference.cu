// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// permute_copy: y[i0, i1, i2, i3] = x[j] with j[p_k] = i_k, x [d0, d1, d2, d3] contiguous, y [d[p0], ..,
// d[p3]] contiguous. Output dim k walks the input with stride sx[p_k].
//
// Two regimes, one kernel (the branch is uniform over the launch):
//  - p3 == 3: the innermost dim is the same in x and y, so y is a copy in rows of d3 contiguous floats;
//    grid-stride over y's elements, each read and write coalesced.
//  - p3 != 3: the input's contiguous dim (3) becomes output dim q (p_q = 3) and the output's contiguous
//    dim comes from input dim p3. A 32 x 32 tile over output dims (q, 3) is read through shared memory:
//    loads with consecutive threads along output dim q (stride 1 in x), stores with consecutive threads
//    along output dim 3 (stride 1 in y), both coalesced; the tile is 32 x 33 to avoid bank conflicts.
//    The two other output dims index the tiles; blocks take tiles grid-stride. Partial tiles at the
//    edges are masked.
// A copy: bit-exact.
//
// Grid: min(cdiv(n, 1024), 16 * sms) blocks of 256 (32 x 8).

// @kbx launch permute_copy<<<max(1, min(cdiv(d0 * d1 * d2 * d3, 1024), 16 * sms)), 256>>>(x, y, d0, d1, d2, d3, p0, p1, p2, p3)

#define TILE 32

extern "C" __global__ void __launch_bounds__(256)
permute_copy(const float *__restrict__ x, float *__restrict__ y, long long d0, long long d1, long long d2,
	     long long d3, int p0, int p1, int p2, int p3)
{
	__shared__ float tile[TILE][TILE + 1];
	const long long dx[4] = { d0, d1, d2, d3 };
	const long long sx[4] = { d1 * d2 * d3, d2 * d3, d3, 1 };
	const int p[4] = { p0, p1, p2, p3 };
	long long ys[4], st[4], ystr[4];
	for (int k = 0; k < 4; k++) {
		ys[k] = dx[p[k]]; /* output sizes */
		st[k] = sx[p[k]]; /* input stride of output dim k */
	}
	ystr[3] = 1;
	ystr[2] = ys[3];
	ystr[1] = ys[2] * ys[3];
	ystr[0] = ys[1] * ys[2] * ys[3];
	long long n = ys[0] * ys[1] * ys[2] * ys[3];

	if (p3 == 3) {
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

	int q = p0 == 3 ? 0 : (p1 == 3 ? 1 : 2);
	int r = q == 0 ? 1 : 0;         /* the two other output dims, r < s, both below 3 */
	int s = q == 2 ? 1 : 2;
	long long tq = (ys[q] + TILE - 1) / TILE, t3 = (ys[3] + TILE - 1) / TILE;
	long long tiles = tq * t3 * ys[r] * ys[s];
	int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
	for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
		long long bq = (t % tq) * TILE;
		long long b3 = ((t / tq) % t3) * TILE;
		long long rs = t / (tq * t3);
		long long ir = rs / ys[s], is = rs % ys[s];
		const float *src = x + ir * st[r] + is * st[s];
		float *dst = y + ir * ystr[r] + is * ystr[s];
		for (int j = ty; j < TILE; j += 8) { /* load: tx along output dim q (input stride 1) */
			long long i3 = b3 + j, iq = bq + tx;
			if (i3 < ys[3] && iq < ys[q])
				tile[j][tx] = src[iq + i3 * st[3]];
		}
		__syncthreads();
		for (int j = ty; j < TILE; j += 8) { /* store: tx along output dim 3 (output stride 1) */
			long long iq = bq + j, i3 = b3 + tx;
			if (i3 < ys[3] && iq < ys[q])
				dst[iq * ystr[q] + i3] = tile[tx][j];
		}
		__syncthreads();
	}
}
