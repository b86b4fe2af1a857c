// @kbx expect pass
// Correct alternative with another layout and dequantization: weights packed two per byte (low
// nibble = even k) in a byte array, quantized by the same f32 formula as the contract (scale =
// amax / 7.0f, rintf(w / scale)), then dequantized per weight in f32 (q * scale) and multiplied
// with the activations, one warp per output feature looping over the batch rows. The dequantized
// weights are exact up to one f32 rounding, so the outputs agree with the reference's to the last
// f16 ulp except where a sum sits on an f16 rounding boundary.
//
// @kbx scratch w_scale f32 [n]
// @kbx scratch w_packed u8 [n, cdiv(k, 2)]
// @kbx launch quant_pack_bytes<<<max(1, cdiv(n, 8)), 256>>>(weight, w_packed, w_scale, n, k)
// @kbx launch linear_deq<<<max(1, cdiv(n, 8)), 256>>>(input, w_packed, w_scale, bias, y, m, k, n, has_bias)

#include <cuda_fp16.h>

static __device__ __forceinline__ unsigned int q4(float w, float scale)
{
	return scale > 0.0f ? (unsigned int)(int)fminf(fmaxf(rintf(w / scale), -8.0f), 7.0f) & 0xFu : 0u;
}

// one warp per weight row; lane b packs bytes b, b + 32, ...
extern "C" __global__ void quant_pack_bytes(const __half* __restrict__ w, unsigned char* __restrict__ packed,
                                            float* __restrict__ w_scale, long long n, long long k)
{
	const long long j = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (j >= n)
		return;
	const __half* wr = w + j * k;
	float amax = 0.0f;
	for (long long kk = lane; kk < k; kk += 32)
		amax = fmaxf(amax, fabsf(__half2float(wr[kk])));
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	const float scale = amax / 7.0f;
	if (lane == 0)
		w_scale[j] = scale;
	const long long kb = (k + 1) / 2;
	for (long long b = lane; b < kb; b += 32) {
		const unsigned int lo = q4(__half2float(wr[2 * b]), scale);
		const unsigned int hi = 2 * b + 1 < k ? q4(__half2float(wr[2 * b + 1]), scale) : 0u;
		packed[j * kb + b] = (unsigned char)(lo | (hi << 4));
	}
}

extern "C" __global__ void linear_deq(const __half* __restrict__ x, const unsigned char* __restrict__ packed,
                                      const float* __restrict__ w_scale, const __half* __restrict__ bias,
                                      __half* __restrict__ y, long long m, long long k, long long n, int has_bias)
{
	const long long j = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (j >= n)
		return;
	const long long kb = (k + 1) / 2;
	const float scale = w_scale[j];
	for (long long i = 0; i < m; i++) {
		float dot = 0.0f;
		for (long long b = lane; b < kb; b += 32) {
			const unsigned int byte = packed[j * kb + b];
			const float w0 = (float)((int)(byte << 28) >> 28) * scale;
			const float w1 = (float)((int)((byte >> 4) << 28) >> 28) * scale;
			dot = fmaf(__half2float(x[i * k + 2 * b]), w0, dot);
			if (2 * b + 1 < k)
				dot = fmaf(__half2float(x[i * k + 2 * b + 1]), w1, dot);
		}
		for (int off = 16; off > 0; off >>= 1)
			dot += __shfl_xor_sync(0xffffffffu, dot, off);
		if (lane == 0)
			y[i * n + j] = __float2half_rn(dot + (has_bias ? __half2float(bias[j]) : 0.0f));
	}
}
