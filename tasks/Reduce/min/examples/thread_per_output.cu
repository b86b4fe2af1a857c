// @kbx expect pass
// Correct alternative: one thread per output scans its slice in order, replacing the best only on a
// strictly smaller value or on the first NaN; the scan order makes ties go to the first index. Loads
// are coalesced across threads when d > 1; long rows (d = 1) are slow but right.
// @kbx launch min_thread<<<max(1, cdiv(a * d, 128)), 128>>>(x, values, indices, a, c, d)

extern "C" __global__ void min_thread(const float *__restrict__ x, float *__restrict__ values,
				      long long *__restrict__ indices, long long a, long long c, long long d)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= a * d)
		return;
	long long i = o / d, l = o % d;
	const float *col = x + i * c * d + l;
	float best = col[0];
	long long bi = 0;
	for (long long k = 1; k < c && best == best; k++) {
		float v = col[k * d];
		if (v < best || v != v) {
			best = v;
			bi = k;
		}
	}
	values[o] = best;
	indices[o] = bi;
}
