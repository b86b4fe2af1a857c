// @kbx expect wrong
// Mistake: the fast intrinsic __cosf (what --use_fast_math substitutes): its crude range reduction loses accuracy as |x| grows (large_args fails).
// @kbx launch cos_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void cos_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __cosf(x[i]);
}
