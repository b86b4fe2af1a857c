// @kbx expect pass
// Correct alternative: one kernel. Each block computes a 32 x 32 tile of input @ weight^T with f32
// fmaf accumulation (2 x 2 outputs per thread) and applies bias and ELU (expm1f) before the only
// store; no intermediate buffer.
//
// @kbx launch linear_elu<<<dim3(max(1, cdiv(n, 32)), max(1, cdiv(m, 32))), 256>>>(input, weight, bias, y, m, n, k, alpha)

extern "C" __global__ void __launch_bounds__(256)
linear_elu(const float* __restrict__ a, const float* __restrict__ w, const float* __restrict__ bias, float* __restrict__ y,
           long long m, long long n, long long kdim, float alpha)
{
	__shared__ float As[32][33], Ws[32][33];
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const long long r0 = (long long)blockIdx.y * 32, c0 = (long long)blockIdx.x * 32;
	float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
	for (long long k0 = 0; k0 < kdim; k0 += 32) {
		for (int t = threadIdx.x; t < 1024; t += 256) {
			int r = t / 32, kk = t % 32;
			As[r][kk] = (r0 + r < m && k0 + kk < kdim) ? a[(r0 + r) * kdim + k0 + kk] : 0.0f;
			Ws[r][kk] = (c0 + r < n && k0 + kk < kdim) ? w[(c0 + r) * kdim + k0 + kk] : 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < 32; kk++)
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					acc[i][j] = fmaf(As[ty + 16 * i][kk], Ws[tx + 16 * j][kk], acc[i][j]);
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			long long r = r0 + ty + 16 * i, c = c0 + tx + 16 * j;
			if (r >= m || c >= n)
				continue;
			float v = acc[i][j] + bias[c];
			y[r * n + c] = v > 0.0f ? v : alpha * expm1f(v);
		}
}
