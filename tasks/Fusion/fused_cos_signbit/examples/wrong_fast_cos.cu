// @kbx expect wrong
// Mistake: the fast-math intrinsic __cosf. Its absolute error (~4e-7 near 0, growing with |x|
// because the range reduction is an f32 multiply by 1 / (2 pi)) is larger than cos itself next to
// the zeros at odd multiples of pi / 2, so sign_bit flips there, and huge arguments give garbage
// (special_values). The random draws pass. There are no scratch buffers: the outputs differ.
//
// @kbx launch cos_fwd<<<max(1, min(cdiv(n, 4096), 65536)), 256>>>(input, cos_result, n)
// @kbx launch signbit_fwd<<<max(1, min(cdiv(n, 1024), 65536)), 256>>>(cos_result, sign_bit, n)

extern "C" __global__ void __launch_bounds__(256)
cos_fwd(const float* __restrict__ x, float* __restrict__ out, long long n)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long n4 = n / 4;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* o4 = reinterpret_cast<float4*>(out);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = __cosf(a.x);
		a.y = __cosf(a.y);
		a.z = __cosf(a.z);
		a.w = __cosf(a.w);
		o4[v] = a;
	}
	const long long i = n4 * 4 + tid; // at most 3 tail elements
	if (i < n)
		out[i] = __cosf(x[i]);
}

extern "C" __global__ void __launch_bounds__(256)
signbit_fwd(const float* __restrict__ c, unsigned char* __restrict__ sign, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		sign[i] = (unsigned char)(__float_as_uint(c[i]) >> 31);
}
