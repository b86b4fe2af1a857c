// @kbx expect wrong
// Mistake: a missing grid-wide dependency. The layer_norm stage runs as one kernel whose blocks each
// own 128 features of a row and normalise them with the mean and variance of those 128 values,
// without waiting for the statistics of the whole row. Right when the row fits in one block
// (test cases, n = 3; n = 33, 128), wrong for every wider row (random_*, width_257, width_1000).
// The `linear` and `relu` stages are the reference's (they match); the output is the first to
// differ.
//
// @kbx scratch linear f32 [m, n]
// @kbx scratch relu f32 [m, n]
// @kbx launch linear_fwd<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(m, 32))), 256>>>(input, weight, bias, linear, m, k, n, has_bias)
// @kbx launch relu_fwd<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(linear, relu, i64(m * n))
// @kbx launch ln_tile<<<dim3(max(1, cdiv(n, 128)), max(1, m)), 128>>>(relu, y, m, n, eps)

#define TM 32  // rows per tile
#define TN 128 // features per tile
#define TK 16

extern "C" __global__ void __launch_bounds__(256)
linear_fwd(const float* __restrict__ x, const float* __restrict__ wt, const float* __restrict__ bias,
           float* __restrict__ out, long long m, long long k, long long n, int has_bias)
{
	__shared__ double As[TK][TM + 1]; // As[kk][row]
	__shared__ double Bs[TK][TN + 1]; // Bs[kk][feature]
	const int tid = threadIdx.x, tx = tid % 32, ty = tid / 32;
	const long long row0 = (long long)blockIdx.y * TM, col0 = (long long)blockIdx.x * TN;
	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;
	for (long long k0 = 0; k0 < k; k0 += TK) {
		for (int r = 0; r < 2; r++) { // input tile: 32 rows x 16 k, consecutive threads along k
			int idx = tid + 256 * r, row = idx / TK, kk = idx % TK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < k) ? (double)x[gr * k + gk] : 0.0;
		}
		for (int r = 0; r < 8; r++) { // weight tile: 128 features x 16 k, consecutive threads along k
			int idx = tid + 256 * r, col = idx / TK, kk = idx % TK;
			long long gc = col0 + col, gk = k0 + kk;
			Bs[kk][col] = (gc < n && gk < k) ? (double)wt[gc * k + gk] : 0.0;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < TK; kk++) {
			double av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 8 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kk][tx + 32 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fma(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 8 * i;
		if (gr >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 32 * j;
			if (gc < n)
				out[gr * n + gc] = (float)(acc[i][j] + (has_bias ? (double)bias[gc] : 0.0));
		}
	}
}

// F.relu on CUDA (clamp_min(x, 0)): NaN is returned unchanged.
extern "C" __global__ void __launch_bounds__(256)
relu_fwd(const float* __restrict__ x, float* __restrict__ y, long long total)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		float v = x[e];
		y[e] = (v != v || v > 0.0f) ? v : 0.0f;
	}
}

// BUG: each block normalises its own 128 features with statistics of those 128 features only. The
// row's statistic needs every block's part first (a grid-wide dependency between the two stages):
// right only when the whole row fits in one block (n <= 128).
extern "C" __global__ void ln_tile(const float* __restrict__ r, float* __restrict__ y, long long m, long long n,
                                   float eps)
{
	__shared__ float s1[128], s2[128];
	const long long row = blockIdx.y, col = (long long)blockIdx.x * 128 + threadIdx.x;
	if (row >= m)
		return;
	const long long cnt = min(128LL, n - (long long)blockIdx.x * 128);
	float v = col < n ? r[row * n + col] : 0.0f;
	s1[threadIdx.x] = v;
	__syncthreads();
	for (int s = 64; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			s1[threadIdx.x] += s1[threadIdx.x + s];
		__syncthreads();
	}
	const float mean = s1[0] / (float)cnt;
	const float d = col < n ? v - mean : 0.0f;
	s2[threadIdx.x] = d * d;
	__syncthreads();
	for (int s = 64; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			s2[threadIdx.x] += s2[threadIdx.x + s];
		__syncthreads();
	}
	if (col < n)
		y[row * n + col] = d * rsqrtf(s2[0] / (float)cnt + eps);
}
