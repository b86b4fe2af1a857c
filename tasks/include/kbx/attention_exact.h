/*
 * kbx/attention_exact.h - the exact f32 attention a quantization reference keeps for [tolerance]
 * exact (doc/task-format.md): out = softmax(q k^T / sqrt(d)) v for q, k, v row-major [b, s, d],
 * f32 throughout (fmaf dot products, a max-subtracted expf softmax, fmaf over the keys), as
 * attention_w8a8's examples/fp32_no_quantization.cu computes it. Launch it `untimed`, on
 * max(1, b * s) blocks of 128 threads (one per query row) with s * 4 bytes of dynamic shared
 * memory (the row's scores): it runs in checked calls only and never counts in the reference's
 * timing.
 */
#ifndef KBX_ATTENTION_EXACT_H
#define KBX_ATTENTION_EXACT_H

/* max (is_max) or sum over the block, through the warps' results in sh (one per warp) */
static __device__ float attention_exact_reduce(float v, bool is_max, float* sh)
{
	for (int off = 16; off > 0; off >>= 1) {
		const float o = __shfl_xor_sync(0xffffffffu, v, off);
		v = is_max ? fmaxf(v, o) : v + o;
	}
	__syncthreads();
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = sh[0];
	for (int w = 1; w < (int)(blockDim.x / 32); w++)
		v = is_max ? fmaxf(v, sh[w]) : v + sh[w];
	return v;
}

extern "C" __global__ void attention_f32_exact(const float* __restrict__ q, const float* __restrict__ k,
					       const float* __restrict__ v, float* __restrict__ out, long long b,
					       long long s, long long d)
{
	extern __shared__ float row_scores[];
	__shared__ float sh[32];
	const long long row = blockIdx.x;
	if (row >= b * s)
		return;
	const long long batch = row / s;
	const float* qr = q + row * d;
	const float* kb = k + batch * s * d;
	const float* vb = v + batch * s * d;
	const float inv_sqrt_d = 1.0f / sqrtf((float)d);
	float mx = __int_as_float(0xff800000); /* -inf */
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		float dot = 0.0f;
		for (long long c = 0; c < d; c++)
			dot = fmaf(qr[c], kb[j * d + c], dot);
		row_scores[j] = dot * inv_sqrt_d;
		mx = fmaxf(mx, row_scores[j]);
	}
	mx = attention_exact_reduce(mx, true, sh);
	float total = 0.0f;
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		row_scores[j] = expf(row_scores[j] - mx);
		total += row_scores[j];
	}
	total = attention_exact_reduce(total, false, sh);
	__syncthreads();
	for (long long c = threadIdx.x; c < d; c += blockDim.x) {
		float o = 0.0f;
		for (long long j = 0; j < s; j++)
			o = fmaf(row_scores[j], vb[j * d + c], o);
		out[row * d + c] = o / total;
	}
}

#endif
