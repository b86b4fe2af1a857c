// @kbx expect wrong
// Mistake: the k loop only runs over whole 16-wide slices (k0 + 16 <= k), silently dropping the
// last k % 16 products; rows and columns are bounds-checked, so nothing crashes, but every case
// whose k is not a multiple of 16 is wrong (for k < 16 the result is all zeros).
//
// @kbx launch matmul_16x16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, batch)), dim3(16, 16)>>>(a, b, c, m, k, n)

extern "C" __global__ void matmul_16x16(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c, long long m, long long k, long long n)
{
	__shared__ float As[16][16];
	__shared__ float Bs[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty;
	const long long col = (long long)blockIdx.x * 16 + tx;
	const float* A = a + (long long)blockIdx.z * m * k;
	const float* B = b + (long long)blockIdx.z * k * n;
	float acc = 0.0f;
	for (long long k0 = 0; k0 + 16 <= k; k0 += 16) {
		As[ty][tx] = row < m ? A[row * k + k0 + tx] : 0.0f;
		Bs[ty][tx] = col < n ? B[(k0 + ty) * n + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		c[(long long)blockIdx.z * m * n + row * n + col] = acc;
}
