// @kbx expect wrong
// Mistake: the reference's scheme (f32 statistics, one scale per row, max |z| / 127, int8 range)
// with another rounding mode: z / scale is truncated toward zero instead of rounded to the nearest
// step. The scale is dynamic, so nothing is clamped either way; each output moves by less than one
// step, always toward zero, and about half of them by a whole step from the reference. Where the
// steps are coarse this is far past rmse 0.1: a numpy model gives rmse 0.52 to 0.65 on
// large_affine (steps ~0.5) and 0.28 to 1.06 on corner_extreme_affine over 10 seeds, and just
// past l1_relative 0.05 (0.051 to 0.089) on most outlier draws (on the plain randn rows, steps
// ~0.03, it stays inside the thresholds). The per-row scales are the reference's and kept under
// its name, y_scale, so no scratch buffer differs: only the output does.
// The lens sees every error within one step of the output's own grid: the diagnosis should say `the
// rounding mode differs`.
//
// @kbx scratch y_scale f32 [rows]
// @kbx launch layernorm_q8<<<max(1, rows), 256>>>(input, weight, bias, y, y_scale, rows, d, eps)

static __device__ __forceinline__ float block_sum(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	__syncthreads(); // the previous reduction's readers are done with sh
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = 0.0f;
	for (int w = 0; w < 8; w++)
		v += sh[w];
	return v;
}

static __device__ __forceinline__ float block_max(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	__syncthreads();
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = sh[0];
	for (int w = 1; w < 8; w++)
		v = fmaxf(v, sh[w]);
	return v;
}

static __device__ __forceinline__ float affine(float x, float mean, float rstd, float w, float b)
{
	return (x - mean) * rstd * w + b;
}

static __device__ __forceinline__ float quant_dequant(float z, float scale)
{
	if (!(scale > 0.0f))
		return 0.0f;
	return fminf(fmaxf(truncf(z / scale), -127.0f), 127.0f) * scale; /* the mistake: toward zero */
}

extern "C" __global__ void __launch_bounds__(256)
layernorm_q8(const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
             float* __restrict__ y, float* __restrict__ y_scale, long long rows, long long d, float eps)
{
	__shared__ float sh[8];
	const long long row = blockIdx.x;
	if (row >= rows)
		return;
	const float* xr = x + row * d;
	float* yr = y + row * d;
	const int t = threadIdx.x;
	const bool vec = (d & 3) == 0;
	const long long d4 = d / 4;
	const float4* x4 = reinterpret_cast<const float4*>(xr);
	const float4* w4 = reinterpret_cast<const float4*>(weight);
	const float4* b4 = reinterpret_cast<const float4*>(bias);

	float s = 0.0f;
	if (vec) {
		for (long long i = t; i < d4; i += 256) {
			const float4 v = x4[i];
			s += (v.x + v.y) + (v.z + v.w);
		}
	} else {
		for (long long i = t; i < d; i += 256)
			s += xr[i];
	}
	const float mean = block_sum(s, sh) / (float)d;

	float ss = 0.0f;
	if (vec) {
		for (long long i = t; i < d4; i += 256) {
			const float4 v = x4[i];
			const float a = v.x - mean, b = v.y - mean, c = v.z - mean, e = v.w - mean;
			ss += (a * a + b * b) + (c * c + e * e);
		}
	} else {
		for (long long i = t; i < d; i += 256) {
			const float a = xr[i] - mean;
			ss += a * a;
		}
	}
	const float var = block_sum(ss, sh) / (float)d;
	const float rstd = 1.0f / sqrtf(var + eps);

	float amax = 0.0f;
	if (vec) {
		for (long long i = t; i < d4; i += 256) {
			const float4 v = x4[i], w = w4[i], b = b4[i];
			amax = fmaxf(amax, fmaxf(fmaxf(fabsf(affine(v.x, mean, rstd, w.x, b.x)), fabsf(affine(v.y, mean, rstd, w.y, b.y))),
			                         fmaxf(fabsf(affine(v.z, mean, rstd, w.z, b.z)), fabsf(affine(v.w, mean, rstd, w.w, b.w)))));
		}
	} else {
		for (long long i = t; i < d; i += 256)
			amax = fmaxf(amax, fabsf(affine(xr[i], mean, rstd, weight[i], bias[i])));
	}
	const float scale = block_max(amax, sh) / 127.0f;
	if (t == 0)
		y_scale[row] = scale;

	if (vec) {
		float4* y4 = reinterpret_cast<float4*>(yr);
		for (long long i = t; i < d4; i += 256) {
			const float4 v = x4[i], w = w4[i], b = b4[i];
			float4 o;
			o.x = quant_dequant(affine(v.x, mean, rstd, w.x, b.x), scale);
			o.y = quant_dequant(affine(v.y, mean, rstd, w.y, b.y), scale);
			o.z = quant_dequant(affine(v.z, mean, rstd, w.z, b.z), scale);
			o.w = quant_dequant(affine(v.w, mean, rstd, w.w, b.w), scale);
			y4[i] = o;
		}
	} else {
		for (long long i = t; i < d; i += 256)
			yr[i] = quant_dequant(affine(xr[i], mean, rstd, weight[i], bias[i]), scale);
	}
}
