// @kbx expect wrong
// Mistake: broadcasts a row vector along the wrong axis (indexes other by the row i instead of the column j), so [p, q] / [q] divides row i by other[i] (row_broadcast fails).
// @kbx launch div_f32<<<max(1, cdiv(p * q, 256)), 256>>>(input, other, out, p, q, op, oq)

extern "C" __global__ void div_f32(const float *__restrict__ input, const float *__restrict__ other, float *__restrict__ out,
				   long long p, long long q, long long op, long long oq)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= p * q)
		return;
	long long r = i / q, col = i % q;
	long long k;
	if (op == p && oq == q)
		k = i;
	else if (op == 1 && oq == 1)
		k = 0;
	else if (op == 1)
		k = r % oq; /* should be col */
	else
		k = r;
	(void)col;
	out[i] = input[i] / other[k];
}
