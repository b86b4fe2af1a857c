// @kbx expect wrong
// Mistake: logical && instead of bitwise &: right for 0/1 (bool) data only; 1 & 2 is 0 but 1 && 2 is 1 (corner_int32 fails).
// @kbx launch bitwise_and_i32<<<max(1, cdiv(p * q, 256)), 256>>>(input, other, out, p, q, op, oq)

extern "C" __global__ void bitwise_and_i32(const int *__restrict__ input, const int *__restrict__ other, int *__restrict__ out,
					   long long p, long long q, long long op, long long oq)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= p * q)
		return;
	long long r = i / q, col = i % q;
	long long k = (op == 1 ? 0 : r) * oq + (oq == 1 ? 0 : col);
	out[i] = input[i] && other[k];
}
