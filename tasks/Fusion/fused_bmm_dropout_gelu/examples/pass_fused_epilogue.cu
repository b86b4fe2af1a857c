// @kbx expect pass
// Correct alternative: one kernel. Each block computes a 32 x 32 tile of the product with f32
// fmaf accumulation (2 x 2 outputs per thread), then applies dropout (kbx's mask on the flat index
// of the element, scale 1 / (1 - p)) and GELU to its accumulators before the only store. No
// intermediate tensor in memory.
//
// @kbx launch bmm_dropout_gelu<<<dim3(max(1, cdiv(p, 32)), max(1, cdiv(n, 32)), max(1, b)), 256>>>(input1, input2, y, b, n, m, p, dropout_p, training, approximate, seed)

#include <kbx/rng.h>

static __device__ __forceinline__ float gelu1(float x, int approximate)
{
	if (approximate)
		return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return 0.5f * x * (1.0f + erff(x * 0.70710678f));
}

extern "C" __global__ void __launch_bounds__(256)
bmm_dropout_gelu(const float* __restrict__ a, const float* __restrict__ bb, float* __restrict__ y, long long nb,
                 long long n, long long m, long long p, float dp, int training, int approximate, long long seed)
{
	__shared__ float As[32][33], Bs[32][33];
	const long long z = blockIdx.z;
	if (z >= nb)
		return;
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const long long r0 = (long long)blockIdx.y * 32, c0 = (long long)blockIdx.x * 32;
	const float* A = a + z * n * m;
	const float* B = bb + z * m * p;
	float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
	for (long long k0 = 0; k0 < m; k0 += 32) {
		for (int t = threadIdx.x; t < 1024; t += 256) {
			int r = t / 32, cc = t % 32;
			As[r][cc] = (r0 + r < n && k0 + cc < m) ? A[(r0 + r) * m + k0 + cc] : 0.0f;
			Bs[r][cc] = (k0 + r < m && c0 + cc < p) ? B[(k0 + r) * p + c0 + cc] : 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < 32; kk++)
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					acc[i][j] = fmaf(As[ty + 16 * i][kk], Bs[kk][tx + 16 * j], acc[i][j]);
		__syncthreads();
	}
	const bool active = training && dp > 0.0f;
	const float scale = dp < 1.0f ? 1.0f / (1.0f - dp) : 0.0f;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			long long r = r0 + ty + 16 * i, c = c0 + tx + 16 * j;
			if (r >= n || c >= p)
				continue;
			long long e = (z * n + r) * p + c;
			float v = acc[i][j];
			if (active)
				v = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= dp ? v * scale : v * 0.0f;
			y[e] = gelu1(v, approximate);
		}
}
