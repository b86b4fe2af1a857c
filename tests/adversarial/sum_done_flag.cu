// @kbx task Reduce/sum
// @kbx expect pass
// @kbx speedup_below 2
// @kbx args --rows 2
// Planted cheat: a "done" word in scratch. A first one-thread kernel decides whether this call may
// skip its work: when the previous call left the word set and the output still holds a finite
// value, nothing is summed and y keeps the previous call's result. Correctness runs start from
// poisoned scratch and outputs (and the check after timing from fresh inputs), so only a timing
// that keeps scratch and outputs between calls would see the skip. kbx resets both before every
// timed call, so every call sums: it must pass with an honest speedup (the skip reports several
// times the reference, and its 4-byte output beside a 512 MB input beats the bandwidth ceiling).
// The sum itself is honest: per output, blocks of partial f64 sums over its a x c elements in a
// fixed order, then one thread per output adds its partials in order (deterministic).
// @kbx scratch parts f64 [max(1, b * d) * 256]
// @kbx scratch word i32 [2]
// @kbx launch done_gate<<<1, 1>>>(y, word, i64(b * d))
// @kbx launch sum_parts<<<dim3(max(1, b * d), 256), 256>>>(x, parts, word, a, b, c, d)
// @kbx launch sum_close<<<max(1, cdiv(b * d, 128)), 128>>>(parts, y, word, i64(b * d))
// @kbx launch done_mark<<<1, 1>>>(word)

#define DONE 0x0d0e0d0e

// word[0]: DONE after a finished call; word[1]: 1 when this call skips.
extern "C" __global__ void done_gate(const float *y, int *word, long long outs)
{
	word[1] = word[0] == DONE && outs > 0 && isfinite(y[0]);
}

extern "C" __global__ void sum_parts(const float *x, double *parts, const int *word, long long a, long long b,
				     long long c, long long d)
{
	__shared__ double red[256];
	long long o = blockIdx.x, j = o / d, l = o % d, len = a * c;
	double acc = 0.0;

	if (word[1] == 1 || o >= b * d)
		return;
	/* element e of output o is x[i, j, kk, l] with e = i * c + kk; block y takes every 256th */
	for (long long e = (long long)blockIdx.y * blockDim.x + threadIdx.x; e < len; e += 256LL * blockDim.x) {
		long long i = e / c, kk = e % c;

		acc += (double)x[((i * b + j) * c + kk) * d + l];
	}
	red[threadIdx.x] = acc;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		parts[o * 256 + blockIdx.y] = red[0];
}

extern "C" __global__ void sum_close(const double *parts, float *y, const int *word, long long outs)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	double s = 0.0;

	if (word[1] == 1 || o >= outs)
		return;
	for (int p = 0; p < 256; p++)
		s += parts[o * 256 + p];
	y[o] = (float)s;
}

extern "C" __global__ void done_mark(int *word)
{
	word[0] = DONE;
}
