// @kbx task Math/add
// @kbx expect pass
// Correct, written in an unusual way: the whole tensor is done by ONE block of 256 threads with a
// grid-stride loop (the grid is a single block whatever n is, so the loop, not the launch, covers
// the tail: 1000003 elements are ~3900 iterations per thread). Handles both forms of `other`
// (m = n tensor, m = 1 number) and n = 0 (the loop does nothing). Computes input + alpha * other
// like the reference, so NaN / inf follow IEEE rules the same way.
// @kbx launch add_one_block<<<1, 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void add_one_block(const float *__restrict__ input, const float *__restrict__ other,
					 float *__restrict__ out, long long n, long long m, float alpha)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		out[i] = input[i] + alpha * (m == 1 ? other[0] : other[i]);
}
