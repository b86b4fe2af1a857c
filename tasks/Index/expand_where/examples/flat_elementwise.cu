// @kbx expect pass
// Correct alternative: one thread per output element over the flat index, i = e / w and j = e % w,
// both sources gathered elementwise. Simple; reads cond once per element (cached).
// @kbx launch expand_where_flat<<<max(1, cdiv(b * w, 256)), 256>>>(x, cond, other, y, b, w)

extern "C" __global__ void expand_where_flat(const float *__restrict__ x, const unsigned char *__restrict__ cond,
					     const float *__restrict__ other, float *__restrict__ y, long long b,
					     long long w)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= b * w)
		return;
	long long i = e / w, j = e % w;
	y[e] = cond[i] ? x[j] : other[e];
}
