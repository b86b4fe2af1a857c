// log|Gamma(x)| in f32 with CUDA's lgammaf, the very function PyTorch's CUDA lgamma kernel calls for
// float (max 6 ulp outside [-10.001, -2.264]; inside, near the zeros of lgamma on the negative axis,
// the error is a few 1e-7 absolute, still far inside the tolerance). Poles and +-inf give +inf.
// A grid-stride loop over float4 groups, four groups per thread, then the n % 4 tail.

// @kbx launch gammaln_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ float gammaln_one(float v)
{
	return lgammaf(v);
}

extern "C" __global__ void gammaln_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = gammaln_one(a.x);
		a.y = gammaln_one(a.y);
		a.z = gammaln_one(a.z);
		a.w = gammaln_one(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = gammaln_one(x[i]);
}
