// @kbx expect wrong
// Mistake: broadcasting. Takes the flag of element e from cond[e % b], as if cond varied along the
// flattened output, instead of the row flag cond[e / w]: most elements select the wrong source.
// @kbx launch expand_where_flat<<<max(1, cdiv(b * w, 256)), 256>>>(x, cond, other, y, b, w)

extern "C" __global__ void expand_where_flat(const float *__restrict__ x, const unsigned char *__restrict__ cond,
					     const float *__restrict__ other, float *__restrict__ y, long long b,
					     long long w)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= b * w)
		return;
	long long j = e % w;
	y[e] = cond[e % b] ? x[j] : other[e];
}
