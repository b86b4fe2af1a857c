// @kbx expect wrong
// Mistake: takes sqrt(|x|) so that negative inputs "work": they must give NaN (corner_negative and corner_mixed fail).
// @kbx launch erfc_sqrt_f32<<<max(1, cdiv(n, 256)), 256>>>(x, erfc_result, sqrt_result, n)

extern "C" __global__ void erfc_sqrt_f32(const float *__restrict__ x, float *__restrict__ erfc_result,
					 float *__restrict__ sqrt_result, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	erfc_result[i] = erfcf(v);
	sqrt_result[i] = sqrtf(fabsf(v));
}
