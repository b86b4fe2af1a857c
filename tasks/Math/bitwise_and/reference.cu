// out = input & other on int32 with broadcasting of other ([op, oq], op in {p, 1}, oq in {q, 1}).
// Exact. Memory-bound: the same-shape case (the perf workload) is a grid-stride loop over int4 groups,
// four groups per thread, then the n % 4 tail; broadcasting indexes other per element.

// @kbx launch bitwise_and_i32<<<max(1, cdiv(p * q, 4096)), 256>>>(input, other, out, p, q, op, oq)

__device__ __forceinline__ int and_one(int a, int b)
{
	return a & b;
}

extern "C" __global__ void bitwise_and_i32(const int *__restrict__ input, const int *__restrict__ other, int *__restrict__ out,
			   long long p, long long q, long long op, long long oq)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n = p * q;
	if (op == p && oq == q) {
		/* same shape: int4 groups over the flat arrays, then the n % 4 tail */
		long long n4 = n / 4;
		const int4 *a4 = reinterpret_cast<const int4 *>(input);
		const int4 *b4 = reinterpret_cast<const int4 *>(other);
		int4 *o4 = reinterpret_cast<int4 *>(out);
		for (long long v = tid; v < n4; v += stride) {
			int4 a = a4[v], b = b4[v];
			a.x = and_one(a.x, b.x);
			a.y = and_one(a.y, b.y);
			a.z = and_one(a.z, b.z);
			a.w = and_one(a.w, b.w);
			o4[v] = a;
		}
		long long i = n4 * 4 + tid;
		if (i < n)
			out[i] = and_one(input[i], other[i]);
		return;
	}
	/* broadcast: other[r, c] with r = 0 when op == 1 and c = 0 when oq == 1 */
	long long rs = op == 1 ? 0 : oq, cs = oq == 1 ? 0 : 1;
	for (long long i = tid; i < n; i += stride) {
		long long r = i / q, col = i - r * q;
		out[i] = and_one(input[i], other[r * rs + col * cs]);
	}
}
