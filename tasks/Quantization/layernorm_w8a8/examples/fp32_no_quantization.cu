// @kbx expect wrong
// Mistake: a plain f32 layer norm that skips the int8 output step (what KernelBenchX's own
// reference computes). The source shows none of the evidence the task requires (no rounding to an
// integer grid, no clamp, no scales), so it cannot pass whatever its outputs. Those miss the
// thresholds against the quantizing reference where the affine output is large (large_affine,
// corner_extreme_affine: the int8 steps themselves exceed rmse 0.1), but they are the exact result
// the reference keeps in y_exact ([tolerance] exact), so by the numbers alone they would pass: only
// the evidence rejects it.
//
// @kbx launch layernorm_f32<<<max(1, cdiv(rows, 8)), 256>>>(input, weight, bias, y, rows, d, eps)

// one warp per row
extern "C" __global__ void layernorm_f32(const float* __restrict__ x, const float* __restrict__ weight,
                                         const float* __restrict__ bias, float* __restrict__ y,
                                         long long rows, long long d, float eps)
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
