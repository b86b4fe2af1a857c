// @kbx expect wrong
// Mistake: skips quantization and computes the exact f32 attention (what KernelBenchX's own
// reference computes). Per-token int8 is accurate enough that these outputs stay inside the metric
// thresholds against the quantizing reference (rmse <= 0.05), so the metrics alone would pass it;
// the source shows none of the evidence the task requires (no rounding to an integer grid, no
// clamp, no scales, no integer accumulation), so it cannot pass.
//
// @kbx launch attn_f32<<<max(1, b * s), 128, s * 4>>>(query, key, value, out, b, s, d)

static __device__ float block_reduce(float v, bool is_max, float* sh)
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

// one block per query row; its s scores live in dynamic shared memory
extern "C" __global__ void attn_f32(const float* __restrict__ q, const float* __restrict__ k,
                                    const float* __restrict__ v, float* __restrict__ out,
                                    long long b, long long s, long long d)
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
	float mx = __int_as_float(0xff800000); // -inf
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		float dot = 0.0f;
		for (long long c = 0; c < d; c++)
			dot = fmaf(qr[c], kb[j * d + c], dot);
		row_scores[j] = dot * inv_sqrt_d;
		mx = fmaxf(mx, row_scores[j]);
	}
	mx = block_reduce(mx, true, sh);
	float total = 0.0f;
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		row_scores[j] = expf(row_scores[j] - mx);
		total += row_scores[j];
	}
	total = block_reduce(total, false, sh);
	__syncthreads();
	for (long long c = threadIdx.x; c < d; c += blockDim.x) {
		float o = 0.0f;
		for (long long j = 0; j < s; j++)
			o = fmaf(row_scores[j], vb[j * d + c], o);
		out[row * d + c] = o / total;
	}
}
