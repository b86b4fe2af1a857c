// @kbx expect wrong
// Mistake: tail not handled. A fused float4 kernel: thread v reads x[4v .. 4v+3], exponentiates and
// stores the four values into every copy; the n % 4 trailing values have no thread and are never
// written. Right only when n % 4 == 0 (the perf sizes, the 256 and 32 x 32 draws, test_case_2);
// wrong on the [1, 2, 3] test cases, reps_1, reps_7_odd, reps_12_dims_2x2x3 and special_fixed. One
// kernel, no scratch: y is wrong.
//
// @kbx launch exp_tile4<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(x, y, n, reps)

extern "C" __global__ void exp_tile4(const float* __restrict__ x, float* __restrict__ y, long long n, long long reps)
{
	const long long nv = n / 4; // BUG: the last n % 4 values are never read or written
	for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < nv; v += (long long)gridDim.x * blockDim.x) {
		float4 a = reinterpret_cast<const float4*>(x)[v];
		a = make_float4(expf(a.x), expf(a.y), expf(a.z), expf(a.w));
		for (long long r = 0; r < reps; r++) {
			float* dst = y + r * n + 4 * v;
			dst[0] = a.x;
			dst[1] = a.y;
			dst[2] = a.z;
			dst[3] = a.w;
		}
	}
}
