/*
 * kbx/layernorm_exact.h - the exact f32 layer norm a quantization reference keeps for [tolerance]
 * exact (doc/task-format.md): F.layer_norm over the last dimension of x [rows, d] with weight and
 * bias [d], unquantized. One warp per row: the f32 mean, then the biased f32 variance of
 * (x - mean) (two passes, no cancellation), z = (x - mean) / sqrt(var + eps) * weight + bias.
 * Launch it `untimed`, on max(1, cdiv(rows, 8)) blocks of 256 threads: it runs in checked calls
 * only and never counts in the reference's timing.
 */
#ifndef KBX_LAYERNORM_EXACT_H
#define KBX_LAYERNORM_EXACT_H

extern "C" __global__ void __launch_bounds__(256)
layernorm_f32_exact(const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
		    float* __restrict__ y, long long rows, long long d, float eps)
{
	const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;

	if (row >= rows)
		return;
	const float* xr = x + row * d;
	float s = 0.0f;

	for (long long i = lane; i < d; i += 32)
		s += xr[i];
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	const float mean = s / (float)d;
	float ss = 0.0f;

	for (long long i = lane; i < d; i += 32)
		ss += (xr[i] - mean) * (xr[i] - mean);
	for (int off = 16; off > 0; off >>= 1)
		ss += __shfl_xor_sync(0xffffffffu, ss, off);
	const float rstd = 1.0f / sqrtf(ss / (float)d + eps);

	for (long long i = lane; i < d; i += 32)
		y[row * d + i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
}

#endif
