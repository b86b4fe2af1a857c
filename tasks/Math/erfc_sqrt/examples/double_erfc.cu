// @kbx expect pass
// Correct alternative: erfc in f64 rounded once, and the f64 square root rounded to f32 (still correctly
// rounded: f64 has more than twice f32's precision). NaN is written explicitly for x < 0, as KernelBenchX's
// masked assignment does; -0 is not < 0 and keeps sqrt(-0) = -0.
// @kbx launch erfc_sqrt_f32<<<max(1, cdiv(n, 128)), 128>>>(x, erfc_result, sqrt_result, n)

extern "C" __global__ void erfc_sqrt_f32(const float *__restrict__ x, float *__restrict__ erfc_result,
					 float *__restrict__ sqrt_result, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double v = x[i];
	erfc_result[i] = (float)erfc(v);
	sqrt_result[i] = v < 0.0 ? __int_as_float(0x7fc00000) : (float)sqrt(v);
}
