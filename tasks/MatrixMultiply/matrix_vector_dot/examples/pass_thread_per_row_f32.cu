// @kbx expect pass
// Correct alternative, the plainest one: a thread per row sums A[i] . x sequentially in f32 fmaf
// and updates y[i] in place, then one thread forms dot(y, x) sequentially in f32. At the perf rows
// (n up to 2^15, uniform data) a sequential f32 sum is ~1.3e-8 sqrt(n) relative std off the exact
// one: at n = 2^15 the cases' rtol 1e-5 would fail about one y[i] a row (a numpy model); the
// task's [tolerance.perf] covers this order, and this example holds it to that.
//
// @kbx launch mv_thread<<<max(1, cdiv(n, 128)), 128>>>(A, x, y, n, alpha, beta)
// @kbx launch dot_seq<<<1, 1>>>(y, x, result, n)

extern "C" __global__ void mv_thread(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                     long long n, float alpha, float beta)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float acc = 0.0f;
	for (long long c = 0; c < n; c++)
		acc = fmaf(A[i * n + c], x[c], acc);
	y[i] = alpha * acc + beta * y[i];
}

extern "C" __global__ void dot_seq(const float* __restrict__ y, const float* __restrict__ x, float* __restrict__ result,
                                   long long n)
{
	float acc = 0.0f;
	for (long long i = 0; i < n; i++)
		acc = fmaf(y[i], x[i], acc);
	result[0] = acc;
}
