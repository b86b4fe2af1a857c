// @kbx expect wrong
// Mistake: NaN handling. Keeps the running minimum with a plain `v < best`, so a NaN never wins (like
// fminf); PyTorch's min returns NaN and the first NaN's index when the slice has one (special cases).
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
	for (long long k = 1; k < c; k++) {
		float v = col[k * d];
		if (v < best) {
			best = v;
			bi = k;
		}
	}
	values[o] = best;
	indices[o] = bi;
}
