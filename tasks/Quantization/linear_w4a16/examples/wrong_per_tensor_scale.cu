// @kbx expect wrong
// Mistake: one int4 scale for the whole weight tensor (max |weight| / 7) instead of one per output
// channel. Packed int4 storage and all the rest as the contract says, but most rows use a few of
// their 16 levels: rmse 2 to 24 against the per-channel reference on the random draws.
// The lens sees the error constant along each output channel and different across them: the
// diagnosis should say `the channel scales differ`.
//
// @kbx scratch tensor_scale f32 [1]
// @kbx scratch w_packed u8 [n, cdiv(k, 2)]
// @kbx launch weight_absmax<<<1, 1024>>>(weight, i64(n * k), tensor_scale)
// @kbx launch pack_bytes<<<max(1, cdiv(n * cdiv(k, 2), 256)), 256>>>(weight, tensor_scale, w_packed, n, k)
// @kbx launch linear_packed<<<max(1, cdiv(n, 8)), 256>>>(input, w_packed, tensor_scale, bias, y, m, k, n, has_bias)

#include <cuda_fp16.h>

extern "C" __global__ void weight_absmax(const __half* __restrict__ w, long long total, float* __restrict__ tensor_scale)
{
	__shared__ float sh[32];
	float a = 0.0f;
	for (long long i = threadIdx.x; i < total; i += blockDim.x)
		a = fmaxf(a, fabsf(__half2float(w[i])));
	for (int off = 16; off > 0; off >>= 1)
		a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int i = 1; i < (int)(blockDim.x / 32); i++)
			a = fmaxf(a, sh[i]);
		tensor_scale[0] = a / 7.0f;
	}
}

static __device__ __forceinline__ unsigned int q4(float w, float scale)
{
	return scale > 0.0f ? (unsigned int)(int)fminf(fmaxf(rintf(w / scale), -8.0f), 7.0f) & 0xFu : 0u;
}

// byte (j, b) holds elements 2b (low nibble) and 2b + 1 (high nibble) of row j
extern "C" __global__ void pack_bytes(const __half* __restrict__ w, const float* __restrict__ tensor_scale,
                                      unsigned char* __restrict__ packed, long long n, long long k)
{
	const long long kb = (k + 1) / 2;
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * kb)
		return;
	const long long j = i / kb, b = i % kb;
	const float scale = tensor_scale[0];
	unsigned int lo = q4(__half2float(w[j * k + 2 * b]), scale);
	unsigned int hi = 2 * b + 1 < k ? q4(__half2float(w[j * k + 2 * b + 1]), scale) : 0u;
	packed[i] = (unsigned char)(lo | hi << 4);
}

extern "C" __global__ void linear_packed(const __half* __restrict__ x, const unsigned char* __restrict__ packed,
                                         const float* __restrict__ tensor_scale, const __half* __restrict__ bias,
                                         __half* __restrict__ y, long long m, long long k, long long n, int has_bias)
{
	const long long j = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (j >= n)
		return;
	const long long kb = (k + 1) / 2;
	const float scale = tensor_scale[0];
	for (long long i = 0; i < m; i++) {
		float dot = 0.0f;
		for (long long kk = lane; kk < k; kk += 32) {
			const unsigned int byte = packed[j * kb + kk / 2];
			const int q = (int)((kk & 1 ? byte >> 4 : byte) << 28) >> 28;
			dot = fmaf(__half2float(x[i * k + kk]), (float)q, dot);
		}
		for (int off = 16; off > 0; off >>= 1)
			dot += __shfl_xor_sync(0xffffffffu, dot, off);
		if (lane == 0)
			y[i * n + j] = __float2half_rn(dot * scale + (has_bias ? __half2float(bias[j]) : 0.0f));
	}
}
