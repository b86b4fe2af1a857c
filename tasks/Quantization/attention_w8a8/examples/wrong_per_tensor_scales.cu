// @kbx expect wrong
// Mistake: one scale per tensor for Q (after the 1/sqrt(d) fold), K and V instead of one per
// token. Still int8 with int32 scores, but on token_ranges the small queries (1000 times smaller
// than the others) round to zero under the tensor-wide scale and attend uniformly instead of
// sharply: rmse ~0.6, l1_relative ~0.4, cosine ~0.82 against the per-token reference, outside all
// three thresholds. (On the plain random draws the coarser scale stays inside them.)
// The quantization lens sees the error vary across tokens (which keep a scale each) and across dims
// (which keep none: that follows V's values): the diagnosis should say `the token scales differ`.
//
// @kbx scratch amax f32 [3]
// @kbx launch tensor_absmax<<<3, 1024>>>(query, key, value, i64(b * s * d), d, amax)
// @kbx launch attn_per_tensor<<<max(1, b * s), 128, s * 4>>>(query, key, value, amax, out, b, s, d)

extern "C" __global__ void tensor_absmax(const float* __restrict__ q, const float* __restrict__ k,
                                         const float* __restrict__ v, long long n, long long d,
                                         float* __restrict__ amax)
{
	__shared__ float sh[32];
	const float* x = blockIdx.x == 0 ? q : blockIdx.x == 1 ? k : v;
	const float factor = blockIdx.x == 0 ? 1.0f / sqrtf((float)d) : 1.0f;
	float a = 0.0f;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		a = fmaxf(a, fabsf(x[i] * factor));
	for (int off = 16; off > 0; off >>= 1)
		a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int w = 1; w < (int)(blockDim.x / 32); w++)
			a = fmaxf(a, sh[w]);
		amax[blockIdx.x] = a;
	}
}

static __device__ __forceinline__ int q8(float x, float scale)
{
	return scale > 0.0f ? (int)fminf(fmaxf(rintf(x / scale), -127.0f), 127.0f) : 0;
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

// one block per query row, quantizing on the fly with the three tensor-wide scales
extern "C" __global__ void attn_per_tensor(const float* __restrict__ q, const float* __restrict__ k,
                                           const float* __restrict__ v, const float* __restrict__ amax,
                                           float* __restrict__ out, long long b, long long s, long long d)
{
	extern __shared__ float p[];
	__shared__ float sh[32];
	const long long row = blockIdx.x;
	if (row >= b * s)
		return;
	const long long batch = row / s;
	const float factor = 1.0f / sqrtf((float)d);
	const float sq = amax[0] / 127.0f, sk = amax[1] / 127.0f, sv = amax[2] / 127.0f;
	const float* qr = q + row * d;
	const float* kb = k + batch * s * d;
	const float* vb = v + batch * s * d;
	float mx = __int_as_float(0xff800000); // -inf
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		int acc = 0;
		for (long long c = 0; c < d; c++)
			acc += q8(qr[c] * factor, sq) * q8(kb[j * d + c], sk);
		p[j] = (float)acc * sq * sk;
		mx = fmaxf(mx, p[j]);
	}
	mx = block_reduce(mx, true, sh);
	float total = 0.0f;
	for (long long j = threadIdx.x; j < s; j += blockDim.x) {
		p[j] = expf(p[j] - mx);
		total += p[j];
	}
	total = block_reduce(total, false, sh);
	__syncthreads();
	for (long long c = threadIdx.x; c < d; c += blockDim.x) {
		float o = 0.0f;
		for (long long j = 0; j < s; j++)
			o = fmaf(p[j] / total, (float)q8(vb[j * d + c], sv) * sv, o);
		out[row * d + c] = o;
	}
}
