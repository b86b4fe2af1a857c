// @kbx expect pass
// Correct alternative: one fused kernel, one block per (query, head): the scores of the query row
// go to shared memory (never to global memory), then the row max, the exp and their sum, then
// y = (sum_j e_j v_j) / sum. All in f32; masked keys (j > i) are skipped. Differs from eager
// PyTorch in rounding only (the division comes after the product), ~1e-7 relative.
// No scratch buffers, so a failure here could not be localised to a stage.
//
// @kbx launch attn_row<<<dim3(max(1, s), max(1, b * h)), 128, (s + d + 8) * 4>>>(q, k, v, y, i64(b * h), s, d, scale, causal)

extern "C" __global__ void __launch_bounds__(128)
attn_row(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, float* __restrict__ y,
         long long bh, long long s, long long d, float scale, int causal)
{
	extern __shared__ float sm[];
	float* p = sm;          // [s] scores, then exp(score - max)
	float* qi = sm + s;     // [d] the query row
	float* red = qi + d;    // [8] reduction scratch
	const long long i = blockIdx.x, z = blockIdx.y;
	if (z >= bh || i >= s)
		return;
	const float* Q = q + (z * s + i) * d;
	const float* K = k + z * s * d;
	const float* V = v + z * s * d;
	for (long long e = threadIdx.x; e < d; e += blockDim.x)
		qi[e] = Q[e];
	__syncthreads();
	const long long valid = causal ? i + 1 : s;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;

	float m = __int_as_float(0xff800000);
	for (long long j = threadIdx.x; j < valid; j += blockDim.x) {
		float acc = 0.0f;
		for (long long e = 0; e < d; e++)
			acc = fmaf(qi[e], K[j * d + e], acc);
		float t = acc * scale;
		p[j] = t;
		m = fmaxf(m, t);
	}
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	if (lane == 0)
		red[warp] = m;
	__syncthreads();
	m = red[0];
	for (int w = 1; w < nw; w++)
		m = fmaxf(m, red[w]);
	__syncthreads();

	float sum = 0.0f;
	for (long long j = threadIdx.x; j < valid; j += blockDim.x) {
		float e = expf(p[j] - m);
		p[j] = e;
		sum += e;
	}
	for (int o = 16; o > 0; o >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, o);
	if (lane == 0)
		red[warp] = sum;
	__syncthreads();
	sum = 0.0f;
	for (int w = 0; w < nw; w++)
		sum += red[w];

	for (long long e = threadIdx.x; e < d; e += blockDim.x) {
		float acc = 0.0f;
		for (long long j = 0; j < valid; j++)
			acc = fmaf(p[j], V[j * d + e], acc);
		y[(z * s + i) * d + e] = acc / sum;
	}
}
