// @kbx expect pass
// @kbx perf_expect timeout: at the last perf rows one thread scans 2^27 values alone, past kbx's 10 s
// Correct alternative: one thread per output scans its slice in order (first index on ties, first NaN
// wins) with the same op-by-op f32 formula as PyTorch. Slow for long rows, right everywhere: its
// cases pass, and at the perf rows (one output over c = 2^12 .. 2^27 values) the single thread runs
// past kbx's 10 s launch limit (H200, issue 20's evaluation: a timeout at perf row 16), which is
// the verdict a run over every perf row gives it (bench/perf_check.py reads `perf_expect`).
// @kbx launch min_gelu_thread<<<max(1, cdiv(a * d, 128)), 128>>>(x, values, indices, a, c, d, approximate)

__device__ float g(float x, int approximate)
{
	if (approximate == 0)
		return __fmul_rn(__fmul_rn(x, erff(__fdiv_rn(x, __int_as_float(0x3fb504f3)))), 0.5f);
	float x3 = __fmul_rn(__fmul_rn(x, x), x);
	float inner = __fadd_rn(x, __fmul_rn(x3, __int_as_float(0x3d372713)));
	return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, tanhf(__fmul_rn(__int_as_float(0x3f4c4229), inner))));
}

extern "C" __global__ void min_gelu_thread(const float *__restrict__ x, float *__restrict__ values,
					   long long *__restrict__ indices, long long a, long long c, long long d,
					   int approximate)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= a * d)
		return;
	long long i = o / d, l = o % d;
	const float *col = x + i * c * d + l;
	float best = g(col[0], approximate);
	long long bi = 0;
	for (long long k = 1; k < c && best == best; k++) {
		float v = g(col[k * d], approximate);
		if (v < best || v != v) {
			best = v;
			bi = k;
		}
	}
	values[o] = best;
	indices[o] = bi;
}
