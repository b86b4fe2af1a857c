// out = input / other in f32 with broadcasting of other ([op, oq], op in {p, 1}, oq in {q, 1}).
// The quotient is IEEE division (NVRTC's default -prec-div=true: correctly rounded), as PyTorch's CUDA
// div for two tensors. Memory-bound: the same-shape case (the perf workload) is a grid-stride loop
// over float4 groups, four groups per thread, then the n % 4 tail; broadcasting indexes other per
// element (it is small and stays in cache).

// @kbx launch div_f32<<<max(1, cdiv(p * q, 4096)), 256>>>(input, other, out, p, q, op, oq)

__device__ __forceinline__ float div_one(float a, float b)
{
	return a / b;
}

extern "C" __global__ void div_f32(const float *__restrict__ input, const float *__restrict__ other, float *__restrict__ out,
			   long long p, long long q, long long op, long long oq)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n = p * q;
	if (op == p && oq == q) {
		/* same shape: float4 groups over the flat arrays, then the n % 4 tail */
		long long n4 = n / 4;
		const float4 *a4 = reinterpret_cast<const float4 *>(input);
		const float4 *b4 = reinterpret_cast<const float4 *>(other);
		float4 *o4 = reinterpret_cast<float4 *>(out);
		for (long long v = tid; v < n4; v += stride) {
			float4 a = a4[v], b = b4[v];
			a.x = div_one(a.x, b.x);
			a.y = div_one(a.y, b.y);
			a.z = div_one(a.z, b.z);
			a.w = div_one(a.w, b.w);
			o4[v] = a;
		}
		long long i = n4 * 4 + tid;
		if (i < n)
			out[i] = div_one(input[i], other[i]);
		return;
	}
	/* broadcast: other[r, c] with r = 0 when op == 1 and c = 0 when oq == 1 */
	long long rs = op == 1 ? 0 : oq, cs = oq == 1 ? 0 : 1;
	for (long long i = tid; i < n; i += stride) {
		long long r = i / q, col = i - r * q;
		out[i] = div_one(input[i], other[r * rs + col * cs]);
	}
}
