// @kbx expect pass
// Correct alternative: a 2-D grid, one thread per element (x over columns, y over row groups), and the
// broadcast written with strides (0 along a broadcast axis); the division is __fdiv_rn, the same IEEE
// correctly rounded quotient as the / operator.
// @kbx launch div_f32<<<dim3(max(1, cdiv(q, 128)), max(1, min(cdiv(p, 4), 65535))), dim3(128, 4)>>>(input, other, out, p, q, op, oq)

extern "C" __global__ void div_f32(const float *__restrict__ input, const float *__restrict__ other, float *__restrict__ out,
				   long long p, long long q, long long op, long long oq)
{
	long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (col >= q)
		return;
	long long rs = op == 1 ? 0 : oq, cs = oq == 1 ? 0 : 1;
	for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < p; r += (long long)gridDim.y * blockDim.y)
		out[r * q + col] = __fdiv_rn(input[r * q + col], other[r * rs + col * cs]);
}
