// @kbx task MatrixMultiply/matmul
// @kbx expect pass
// Correct, written in an unusual way: shared-memory tiles of odd, mutually prime sizes (19 rows x
// 23 columns of c per block, k staged 11 at a time), a 23 x 19 = 437-thread block (not a multiple
// of 32) with one output per thread. Out-of-range tile elements are loaded as 0 and every thread
// reaches every __syncthreads (no early return), so m, n, k of any size work, k = 0 writes zeros
// and m = 0 writes nothing. Each output is the same sequential fmaf chain over k as the
// reference's (the padded zeros add fmaf(0, 0, acc) = acc), so the results match it bit for bit
// up to the sign of a zero.
// @kbx launch matmul_odd<<<dim3(max(1, cdiv(n, 23)), max(1, cdiv(m, 19)), max(1, batch)), dim3(23, 19)>>>(a, b, c, m, k, n)

#define TM 19
#define TN 23
#define TK 11

extern "C" __global__ void __launch_bounds__(TM * TN)
matmul_odd(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
	   long long m, long long k, long long n)
{
	__shared__ float As[TM][TK];
	__shared__ float Bs[TK][TN];
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TN + tx;
	const long long row0 = (long long)blockIdx.y * TM, col0 = (long long)blockIdx.x * TN;
	const float *A = a + (long long)blockIdx.z * m * k;
	const float *B = b + (long long)blockIdx.z * k * n;
	float acc = 0.0f;

	for (long long k0 = 0; k0 < k; k0 += TK) {
		if (tid < TM * TK) {
			int r = tid / TK, kk = tid % TK;
			long long gr = row0 + r, gk = k0 + kk;
			As[r][kk] = (gr < m && gk < k) ? A[gr * k + gk] : 0.0f;
		}
		if (tid < TK * TN) {
			int kk = tid / TN, cc = tid % TN;
			long long gk = k0 + kk, gc = col0 + cc;
			Bs[kk][cc] = (gk < k && gc < n) ? B[gk * n + gc] : 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < TK; kk++)
			acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	const long long row = row0 + ty, col = col0 + tx;
	if (row < m && col < n)
		c[(long long)blockIdx.z * m * n + row * n + col] = acc;
}
