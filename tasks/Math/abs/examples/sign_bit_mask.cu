// @kbx expect pass
// Correct alternative: one element per thread, clearing bit 31 of the IEEE pattern with an integer AND
// (what fabsf compiles to); NaN payloads, infinities and denormals keep their magnitude.
// @kbx launch abs_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void abs_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __int_as_float(__float_as_int(x[i]) & 0x7fffffff);
}
