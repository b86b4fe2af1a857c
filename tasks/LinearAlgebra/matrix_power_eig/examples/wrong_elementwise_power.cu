// @kbx expect wrong
// Mistake: raises every entry to the power k (pow(a_ij, k) of the symmetric matrix) instead of
// the matrix: the same for a diagonal matrix (test_case_1), wrong everywhere else.
//
// @kbx launch elementwise_pow<<<max(1, cdiv(n * n, 256)), 256>>>(a, y, n, k)

extern "C" __global__ void __launch_bounds__(256)
elementwise_pow(const float* __restrict__ a, float* __restrict__ y, long long n, float k)
{
	const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= n * n)
		return;
	const long long r = e / n, c = e % n;
	y[e] = powf(c <= r ? a[e] : a[c * n + r], k); // BUG: entrywise, not V diag(lambda^k) V^T
}
