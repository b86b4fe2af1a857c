// @kbx expect pass
// Correct alternative: one thread per output element computes its input offset (output dim k adds
// i_k * stride of input dim p_k) and gathers. Writes are coalesced, reads strided when the inner dim
// moves: slower than the tiled reference for the perf transpose, but right everywhere.
// @kbx launch permute_naive<<<max(1, cdiv(d0 * d1 * d2 * d3, 256)), 256>>>(x, y, d0, d1, d2, d3, p0, p1, p2, p3)

extern "C" __global__ void permute_naive(const float *__restrict__ x, float *__restrict__ y, long long d0,
					 long long d1, long long d2, long long d3, int p0, int p1, int p2, int p3)
{
	const long long dx[4] = { d0, d1, d2, d3 };
	const long long sx[4] = { d1 * d2 * d3, d2 * d3, d3, 1 };
	const int p[4] = { p0, p1, p2, p3 };
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= d0 * d1 * d2 * d3)
		return;
	long long r = e, off = 0;
	for (int k = 3; k >= 0; k--) {
		long long size = dx[p[k]];
		off += (r % size) * sx[p[k]];
		r /= size;
	}
	y[e] = x[off];
}
