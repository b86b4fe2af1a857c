// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because ^case auto:
// Specialised to the test sizes: a "tuned dispatch table" that knows exactly the sizes of the
// task's own cases (0, 1, 3, 5, 12, 257, 1009, 4096, 4099, 1000003 and 2^20) and computes them
// right; every other size takes a default plan that only covers whole tiles of 1024 elements and
// leaves the rest of y unwritten. It passes every case of task.ini and must fail on the derived
// boundary sizes (core/derive.h: n = 2, 7, 9, 17, ... with the base case's other bindings), which
// are named "auto:n=...".
// @kbx launch gelu_tuned<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

__device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f;
		const float kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f;
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

__device__ __forceinline__ bool tuned(long long n)
{
	switch (n) {
	case 0: case 1: case 3: case 5: case 12: case 257: case 1009: case 4096: case 4099: case 1000003:
	case 1048576:
		return true;
	default:
		return false;
	}
}

extern "C" __global__ void gelu_tuned(const float *__restrict__ x, float *__restrict__ y, long long n,
				      int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	if (!tuned(n) && i >= n / 1024 * 1024) /* the default plan: whole tiles only */
		return;
	y[i] = gelu_one(x[i], approximate);
}
