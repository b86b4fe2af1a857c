// @kbx expect wrong
// Mistake: the permutation read backwards. Takes input dim k's index from output dim p_k (as if p said
// where each input dim goes) instead of output dim k coming from input dim p_k. Identical for
// permutations that are their own inverse ([1, 0], [3, 2, 1, 0]); wrong for the test's [3, 0, 2, 1]
// and [2, 0, 1] (out-of-range indices are written as 0).
// @kbx launch permute_naive<<<max(1, cdiv(d0 * d1 * d2 * d3, 256)), 256>>>(x, y, d0, d1, d2, d3, p0, p1, p2, p3)

extern "C" __global__ void permute_naive(const float *__restrict__ x, float *__restrict__ y, long long d0,
					 long long d1, long long d2, long long d3, int p0, int p1, int p2, int p3)
{
	const long long dx[4] = { d0, d1, d2, d3 };
	const int p[4] = { p0, p1, p2, p3 };
	long long ys[4], i[4];
	for (int k = 0; k < 4; k++)
		ys[k] = dx[p[k]];
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= d0 * d1 * d2 * d3)
		return;
	long long r = e;
	for (int k = 3; k >= 0; k--) {
		i[k] = r % ys[k];
		r /= ys[k];
	}
	long long off = 0;
	for (int k = 0; k < 4; k++) {
		long long j = i[p[k]]; /* wrong: should be j[p[k]] = i[k] */
		if (j >= dx[k]) {
			y[e] = 0.0f;
			return;
		}
		off = off * dx[k] + j;
	}
	y[e] = x[off];
}
