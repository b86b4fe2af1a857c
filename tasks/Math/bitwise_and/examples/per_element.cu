// @kbx expect pass
// Correct alternative: one thread per element for every shape, the broadcast index computed with
// row / column strides that are 0 along a broadcast axis.
// @kbx launch bitwise_and_i32<<<max(1, cdiv(p * q, 256)), 256>>>(input, other, out, p, q, op, oq)

extern "C" __global__ void bitwise_and_i32(const int *__restrict__ input, const int *__restrict__ other, int *__restrict__ out,
					   long long p, long long q, long long op, long long oq)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= p * q)
		return;
	long long r = i / q, col = i - r * q;
	out[i] = input[i] & other[r * (op == 1 ? 0 : oq) + col * (oq == 1 ? 0 : 1)];
}
