// @kbx expect pass
// Correct alternative: the linear stage in f32 (16 x 16 shared-memory tiles, sequential fmaf over k)
// with bias and relu applied in its epilogue, written to `relu`; then one block per row computes the
// row's mean and variance in f32 (two passes) and writes the normalised row. No `linear` buffer.
//
// @kbx scratch relu f32 [m, n]
// @kbx launch linear_relu<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, weight, bias, relu, m, k, n, has_bias)
// @kbx launch row_norm<<<max(1, min(m, 65535)), 256>>>(relu, y, m, n, eps)

extern "C" __global__ void linear_relu(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ bias, float* __restrict__ out, long long m,
                                       long long k, long long n, int has_bias)
{
	__shared__ float xs[16][17], ws[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	const long long wrow = (long long)blockIdx.x * 16 + ty; // the weight row this thread loads
	float acc = 0.0f;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		xs[ty][tx] = (row < m && k0 + tx < k) ? x[row * k + k0 + tx] : 0.0f;
		ws[ty][tx] = (wrow < n && k0 + tx < k) ? w[wrow * k + k0 + tx] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(xs[ty][kk], ws[tx][kk], acc);
		__syncthreads();
	}
	if (row < m && col < n) {
		float v = acc + (has_bias ? bias[col] : 0.0f);
		out[row * n + col] = (v != v || v > 0.0f) ? v : 0.0f;
	}
}

__device__ float block_sum(float v, float* sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	float r = sh[0];
	__syncthreads();
	return r;
}

extern "C" __global__ void row_norm(const float* __restrict__ r, float* __restrict__ y, long long m, long long n,
                                    float eps)
{
	__shared__ float sh[256];
	for (long long row = blockIdx.x; row < m; row += gridDim.x) {
		const float* rp = r + row * n;
		float s = 0.0f;
		for (long long e = threadIdx.x; e < n; e += 256)
			s += rp[e];
		const float mean = block_sum(s, sh) / (float)n;
		float q = 0.0f;
		for (long long e = threadIdx.x; e < n; e += 256) {
			float d = rp[e] - mean;
			q = fmaf(d, d, q);
		}
		const float invstd = rsqrtf(block_sum(q, sh) / (float)n + eps);
		for (long long e = threadIdx.x; e < n; e += 256)
			y[row * n + e] = (rp[e] - mean) * invstd;
	}
}
