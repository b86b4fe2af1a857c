// @kbx expect wrong
// Mistake: floor through a cast to int, which truncates toward zero (negative non-integers are one too high) and overflows beyond the int32 range.
// @kbx launch floor_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void floor_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)(int)x[i];
}
