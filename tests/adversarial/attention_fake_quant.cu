// @kbx task Quantization/attention_w8a8
// @kbx expect wrong
// @kbx because no evidence that it does what the task requires: missing round_to_int .*int_accumulate
// Fake quantization, dressed up: it derives the per-token scales of the contract (max |row| / 127,
// the 1/sqrt(d) folded into the query) and clamps to [-127, 127], but never rounds to the integer
// grid and accumulates the "int8" products in f32, so every "quantized" value is just x / scale and
// the result is the exact f32 attention. That lands inside the task's metric thresholds on every
// case (task.ini: per-token int8 is that close to exact attention), so the outputs alone would
// pass; the task's [static] require rules find scale derivation and clamping in the source but no
// rounding (round_to_int) and no integer accumulation (int_accumulate), and the verdict is wrong.
// @kbx launch attn_fakeq<<<max(1, b * s), 128, s * 8>>>(query, key, value, out, b, s, d)

static __device__ float block_reduce(float v, bool is_max, float *sh)
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

/* "quantize": x / scale clamped to the int8 range, but left on the real line */
static __device__ __forceinline__ float fake_q(float x, float scale)
{
	return scale > 0.0f ? fminf(fmaxf(x / scale, -127.0f), 127.0f) : 0.0f;
}

static __device__ float row_scale(const float *r, long long d, float mul)
{
	float amax = 0.0f;
	for (long long c = 0; c < d; c++)
		amax = fmaxf(amax, fabsf(r[c] * mul));
	return amax / 127.0f;
}

// one block per query row; its s scores and the s value-row scales live in dynamic shared memory
extern "C" __global__ void attn_fakeq(const float *__restrict__ q, const float *__restrict__ k,
				      const float *__restrict__ v, float *__restrict__ out, long long b, long long s,
				      long long d)
{
	extern __shared__ float dyn[];
	float *scores = dyn, *v_scale = dyn + s;
	__shared__ float sh[32];
	const long long row = blockIdx.x;
	if (row >= b * s)
		return;
	const long long batch = row / s;
	const float *qr = q + row * d;
	const float *kb = k + batch * s * d;
	const float *vb = v + batch * s * d;
	const float inv_sqrt_d = 1.0f / sqrtf((float)d);

	float qa = 0.0f;
	for (long long c = threadIdx.x; c < d; c += blockDim.x)
		qa = fmaxf(qa, fabsf(qr[c] * inv_sqrt_d));
	const float q_scale = block_reduce(qa, true, sh) / 127.0f;

	float mx = __int_as_float(0xff800000); // -inf
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		const float *kr = kb + j * d;
		const float k_scale = row_scale(kr, d, 1.0f);
		float dot = 0.0f;
		for (long long c = 0; c < d; c++)
			dot = fmaf(fake_q(qr[c] * inv_sqrt_d, q_scale), fake_q(kr[c], k_scale), dot);
		scores[j] = dot * q_scale * k_scale;
		v_scale[j] = row_scale(vb + j * d, d, 1.0f);
		mx = fmaxf(mx, scores[j]);
	}
	mx = block_reduce(mx, true, sh);
	float total = 0.0f;
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		scores[j] = expf(scores[j] - mx);
		total += scores[j];
	}
	total = block_reduce(total, false, sh);
	__syncthreads();
	for (long long c = threadIdx.x; c < d; c += blockDim.x) {
		float o = 0.0f;
		for (long long j = 0; j < s; j++)
			o = fmaf(scores[j], fake_q(vb[j * d + c], v_scale[j]) * v_scale[j], o);
		out[row * d + c] = o / total;
	}
}
