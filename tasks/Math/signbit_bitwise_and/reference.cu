// sign = signbit(x) (bit 31: -0 and -nan count), anded = (int8)x & other, per element.
// (int8)x truncates toward zero; C++ defines it for x in (-129, 128), which is what the cases use.
// Memory-bound: a grid-stride loop over groups of 4 (a float4 and a char4 in, a uchar4 and a char4 out; the
// byte offsets 4 * v are 4-byte aligned), then the n % 4 tail elements.

// @kbx launch signbit_and<<<max(1, cdiv(n, 4096)), 256>>>(input, other, sign, anded, n)

__device__ __forceinline__ unsigned char sign_of(float v)
{
	return (unsigned char)(__float_as_uint(v) >> 31);
}

__device__ __forceinline__ signed char and_of(float v, signed char o)
{
	return (signed char)((signed char)(int)v & o);
}

extern "C" __global__ void signbit_and(const float *__restrict__ input, const signed char *__restrict__ other,
				      unsigned char *__restrict__ sign, signed char *__restrict__ anded, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(input);
	const char4 *o4 = reinterpret_cast<const char4 *>(other);
	uchar4 *s4 = reinterpret_cast<uchar4 *>(sign);
	char4 *a4 = reinterpret_cast<char4 *>(anded);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		char4 b = o4[v];
		s4[v] = make_uchar4(sign_of(a.x), sign_of(a.y), sign_of(a.z), sign_of(a.w));
		a4[v] = make_char4(and_of(a.x, b.x), and_of(a.y, b.y), and_of(a.z, b.z), and_of(a.w, b.w));
	}
	long long i = n4 * 4 + tid;
	if (i < n) {
		sign[i] = sign_of(input[i]);
		anded[i] = and_of(input[i], other[i]);
	}
}
