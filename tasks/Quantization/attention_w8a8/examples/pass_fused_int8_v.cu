// @kbx expect pass
// Correct alternative, fused and with V kept in int8 (the docstring's "advanced" variant): K and V
// rows are quantized ahead (multiplying by 127 / amax, rounding half away from zero with roundf),
// then one block per query row quantizes its own query, computes its int32 scores, the f32
// softmax in shared memory, and out = sum_j (p_j * v_scale_j) * v_q[j, :] with the int8 values
// dequantized on the fly. Other rounding ties and summation orders than the reference: far inside
// the metric thresholds.
//
// @kbx scratch kv_scale f32 [2, b, s]
// @kbx scratch k_q i8 [b, s, d]
// @kbx scratch v_q i8 [b, s, d]
// @kbx launch quant_kv<<<max(1, cdiv(2 * b * s, 4)), 128>>>(key, value, k_q, v_q, kv_scale, i64(b * s), d)
// @kbx launch attn_row<<<max(1, b * s), 128, (s + d) * 4>>>(query, k_q, v_q, kv_scale, out, b, s, d)

static __device__ __forceinline__ int q8(float x, float inv)
{
	return (int)fminf(fmaxf(roundf(x * inv), -127.0f), 127.0f);
}

// one warp per row: rows [0, rows) of K, then rows [rows, 2 rows) of V
extern "C" __global__ void quant_kv(const float* __restrict__ k, const float* __restrict__ v,
                                    signed char* __restrict__ kq, signed char* __restrict__ vq,
                                    float* __restrict__ kv_scale, long long rows, long long d)
{
	const long long r = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (r >= 2 * rows)
		return;
	const bool is_v = r >= rows;
	const long long row = is_v ? r - rows : r;
	const float* x = (is_v ? v : k) + row * d;
	signed char* xq = (is_v ? vq : kq) + row * d;
	float amax = 0.0f;
	for (long long c = lane; c < d; c += 32)
		amax = fmaxf(amax, fabsf(x[c]));
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
	for (long long c = lane; c < d; c += 32)
		xq[c] = (signed char)q8(x[c], inv);
	if (lane == 0)
		kv_scale[r] = amax / 127.0f;
}

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

// one block per query row; dynamic shared memory: s scores, then d quantized query values
extern "C" __global__ void attn_row(const float* __restrict__ q, const signed char* __restrict__ kq,
                                    const signed char* __restrict__ vq, const float* __restrict__ kv_scale,
                                    float* __restrict__ out, long long b, long long s, long long d)
{
	extern __shared__ float smem[];
	__shared__ float sh[32];
	const long long row = blockIdx.x;
	if (row >= b * s)
		return;
	float* p = smem;
	int* qrow = reinterpret_cast<int*>(smem + s);
	const long long batch = row / s;
	const float* qr = q + row * d;
	const float factor = 1.0f / sqrtf((float)d);

	float amax = 0.0f;
	for (long long c = threadIdx.x; c < d; c += blockDim.x)
		amax = fmaxf(amax, fabsf(qr[c] * factor));
	amax = block_reduce(amax, true, sh);
	const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
	const float q_scale = amax / 127.0f;
	for (long long c = threadIdx.x; c < d; c += blockDim.x)
		qrow[c] = q8(qr[c] * factor, inv);
	__syncthreads();

	const signed char* kb = kq + batch * s * d;
	const signed char* vb = vq + batch * s * d;
	const float* k_scale = kv_scale + batch * s;
	const float* v_scale = kv_scale + (b + batch) * s;
	float mx = __int_as_float(0xff800000); // -inf
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		int acc = 0;
		for (long long c = 0; c < d; c++)
			acc += qrow[c] * (int)kb[j * d + c];
		p[j] = (float)acc * (q_scale * k_scale[j]);
		mx = fmaxf(mx, p[j]);
	}
	mx = block_reduce(mx, true, sh);
	float total = 0.0f;
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		const float e = expf(p[j] - mx);
		p[j] = e;
		total += e;
	}
	total = block_reduce(total, false, sh);
	for (long long j = threadIdx.x; j < s; j += blockDim.x)
		p[j] = p[j] / total * v_scale[j];
	__syncthreads();
	for (long long c = threadIdx.x; c < d; c += blockDim.x) {
		float o = 0.0f;
		for (long long j = 0; j < s; j++)
			o = fmaf(p[j], (float)vb[j * d + c], o);
		out[row * d + c] = o;
	}
}
