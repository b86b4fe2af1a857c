// @kbx expect pass
// Correct alternative with other numerics: one warp per row, mean and variance by Welford's
// algorithm in f32 (lanes merged with Chan's formula), the row's max |z| by warp shuffles, and the
// quantization by multiplying with 127 / amax and rounding half away from zero (roundf), then
// times amax / 127. z differs from the reference's by a few ulp, so only values within that of a
// rounding boundary can land one int8 step apart, far inside the metric.
//
// @kbx launch layernorm_q8_warp<<<max(1, cdiv(rows, 4)), 128>>>(input, weight, bias, y, rows, d, eps)

extern "C" __global__ void layernorm_q8_warp(const float* __restrict__ x, const float* __restrict__ weight,
                                             const float* __restrict__ bias, float* __restrict__ y,
                                             long long rows, long long d, float eps)
{
	const long long row = (long long)blockIdx.x * 4 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	const float* xr = x + row * d;
	float n = 0.0f, mean = 0.0f, m2 = 0.0f;
	for (long long i = lane; i < d; i += 32) {
		const float v = xr[i];
		n += 1.0f;
		const float delta = v - mean;
		mean += delta / n;
		m2 += delta * (v - mean);
	}
	for (int off = 16; off > 0; off >>= 1) {
		const float n_b = __shfl_xor_sync(0xffffffffu, n, off);
		const float mean_b = __shfl_xor_sync(0xffffffffu, mean, off);
		const float m2_b = __shfl_xor_sync(0xffffffffu, m2, off);
		const float n_ab = n + n_b;
		if (n_ab > 0.0f) {
			const float delta = mean_b - mean;
			mean += delta * (n_b / n_ab);
			m2 += m2_b + delta * delta * (n * n_b / n_ab);
		}
		n = n_ab;
	}
	const float rstd = 1.0f / sqrtf(m2 / (float)d + eps);
	float amax = 0.0f;
	for (long long i = lane; i < d; i += 32)
		amax = fmaxf(amax, fabsf((xr[i] - mean) * rstd * weight[i] + bias[i]));
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
	const float step = amax / 127.0f;
	for (long long i = lane; i < d; i += 32) {
		const float z = (xr[i] - mean) * rstd * weight[i] + bias[i];
		y[row * d + i] = fminf(fmaxf(roundf(z * inv), -127.0f), 127.0f) * step;
	}
}
