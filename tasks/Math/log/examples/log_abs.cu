// @kbx expect wrong
// Mistake: takes log(|x|) "to avoid NaN": negative inputs give finite values where torch.log gives NaN (the negative corner cases fail).
// @kbx launch log_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void log_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = logf(fabsf(x[i]));
}
