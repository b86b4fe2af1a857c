// @kbx expect wrong
// Mistake: the copies interleaved (repeat_interleave order, y[i * reps + r]) instead of stacked
// along the new leading dims (y[r * n + i]): every case with reps > 1 and n > 1 has the values in
// the wrong places. Keeps the reference's `exp` stage, which matches: the first wrong buffer is the
// output y.
//
// @kbx scratch exp f32 [n]
// @kbx launch exp_k<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(x, exp, n)
// @kbx launch spread<<<max(1, min(cdiv(n * reps, 256), 65536)), 256>>>(exp, y, n, reps)

extern "C" __global__ void exp_k(const float* __restrict__ x, float* __restrict__ out, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		out[i] = expf(x[i]);
}

extern "C" __global__ void spread(const float* __restrict__ e, float* __restrict__ y, long long n, long long reps)
{
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n * reps; o += (long long)gridDim.x * blockDim.x)
		y[o] = e[o / reps]; // BUG: y[r * n + i] = e[i], i.e. e[o % n]
}
