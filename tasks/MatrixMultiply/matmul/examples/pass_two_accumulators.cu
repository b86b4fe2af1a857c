// @kbx expect pass
// Correct alternative: a 32 x 32 tile per block, 2 x 2 outputs per thread, and each output summed
// in two interleaved f32 partial sums (even and odd k) added at the end. The summation order
// differs from the reference, which the 1e-5 tolerance must (and does) absorb at these k.
//
// @kbx launch matmul_32x32<<<dim3(max(1, cdiv(n, 32)), max(1, cdiv(m, 32)), max(1, batch)), dim3(16, 16)>>>(a, b, c, m, k, n)

#define T 32

extern "C" __global__ void matmul_32x32(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ float As[T][T + 1];
	__shared__ float Bs[T][T + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row0 = (long long)blockIdx.y * T, col0 = (long long)blockIdx.x * T;
	const float* A = a + (long long)blockIdx.z * m * k;
	const float* B = b + (long long)blockIdx.z * k * n;
	float* C = c + (long long)blockIdx.z * m * n;
	float even[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
	float odd[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};

	for (long long k0 = 0; k0 < k; k0 += T) {
		for (int r = ty; r < T; r += 16)
			for (int q = tx; q < T; q += 16) {
				long long gr = row0 + r, gk = k0 + q;
				As[r][q] = (gr < m && gk < k) ? A[gr * k + gk] : 0.0f;
				long long gk2 = k0 + r, gc = col0 + q;
				Bs[r][q] = (gk2 < k && gc < n) ? B[gk2 * n + gc] : 0.0f;
			}
		__syncthreads();
		for (int kk = 0; kk < T; kk += 2)
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++) {
					even[i][j] = fmaf(As[ty + 16 * i][kk], Bs[kk][tx + 16 * j], even[i][j]);
					odd[i][j] = fmaf(As[ty + 16 * i][kk + 1], Bs[kk + 1][tx + 16 * j], odd[i][j]);
				}
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			long long gr = row0 + ty + 16 * i, gc = col0 + tx + 16 * j;
			if (gr < m && gc < n)
				C[gr * n + gc] = even[i][j] + odd[i][j];
		}
}
