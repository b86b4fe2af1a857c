// @kbx expect wrong
// Mistake: tail not handled. The cosine kernel works in float4 groups and drops the n % 4 elements
// after the last full group; the sign kernel then reads those unwritten values. Right only when n
// is a multiple of 4 (the random draws and the perf sizes); the KernelBenchX corner cases (n = 3),
// prime_1009 and odd_100003 fail.
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
		a.x = cosf(a.x);
		a.y = cosf(a.y);
		a.z = cosf(a.z);
		a.w = cosf(a.w);
		o4[v] = a;
	}
	// BUG: no tail: the last n % 4 elements are never written
}

extern "C" __global__ void __launch_bounds__(256)
signbit_fwd(const float* __restrict__ c, unsigned char* __restrict__ sign, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		sign[i] = (unsigned char)(__float_as_uint(c[i]) >> 31);
}
