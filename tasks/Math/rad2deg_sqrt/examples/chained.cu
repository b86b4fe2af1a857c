// @kbx expect wrong
// Mistake: chains the two results, root = sqrt(deg), as if the function composed rad2deg and sqrt. Both
// outputs come from the same input: sqrt(x), not sqrt(x * 180 / pi) (every case with x != 0, 1 fails).
// @kbx launch rad2deg_sqrt_f32<<<max(1, cdiv(n, 256)), 256>>>(x, deg, root, n)

extern "C" __global__ void rad2deg_sqrt_f32(const float *__restrict__ x, float *__restrict__ deg,
					   float *__restrict__ root, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float d = x[i] * 57.29578f;
	deg[i] = d;
	root[i] = sqrtf(d);
}
