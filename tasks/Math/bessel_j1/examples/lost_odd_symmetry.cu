// @kbx expect wrong
// Mistake: evaluates J1 at |x| and forgets the sign: J1 is odd, so every negative input gets the wrong sign (corner_negative fails).
// @kbx launch bessel_j1_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void bessel_j1_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)j1(fabs((double)x[i]));
}
