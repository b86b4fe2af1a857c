// y = signbit(x) as a bool byte (0 or 1): bit 31 of the f32 pattern, so -0 and -nan count as negative.
// Memory-bound: a grid-stride loop that reads a float4 and writes its four flags as one 4-byte word
// (uchar4; the output offset 4 * v is 4-byte aligned), then the n % 4 tail elements.

// @kbx launch signbit_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

__device__ __forceinline__ unsigned char sign_of(float v)
{
	return (unsigned char)(__float_as_uint(v) >> 31);
}

extern "C" __global__ void signbit_f32(const float *__restrict__ x, unsigned char *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	uchar4 *y4 = reinterpret_cast<uchar4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		y4[v] = make_uchar4(sign_of(a.x), sign_of(a.y), sign_of(a.z), sign_of(a.w));
	}
	long long i = n4 * 4 + tid;
	if (i < n)
		y[i] = sign_of(x[i]);
}
