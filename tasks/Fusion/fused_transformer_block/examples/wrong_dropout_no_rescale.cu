// @kbx expect wrong
// Mistake: dropout scaled wrongly: the mask is drawn exactly as specified, but the kept values are
// not multiplied by 1 / (1 - p), so z3's expected row sum drops to 1 - p. Right for p = 0 (the
// test's random draws, test_case_3) and p = 1 (all zeros either way), wrong for test_case_1,
// test_case_2 and every other 0 < p < 1 case. Same stages and scratch names as the reference:
// `matmul` and `softmax` match, the first wrong stage reported is `dropout`.
//
// @kbx scratch matmul f32 [b * s, dk]
// @kbx scratch softmax f32 [b * s, dk]
// @kbx scratch dropout f32 [b * s, dk]
// @kbx scratch matmul2 f32 [b * s, dout]
// @kbx scratch add f32 [b * s, dout]
// @kbx launch sgemm128<<<dim3(max(1, cdiv(dk, 128)), max(1, cdiv(b * s, 128))), 256>>>(input, weight1, matmul, i64(b * s), dk, din, din, i64(1), dk, i64(1))
// @kbx launch softmax_rows<<<max(1, min(b * s, 65536)), 256>>>(matmul, softmax, i64(b * s), dk)
// @kbx launch dropout_k<<<max(1, min(cdiv(b * s * dk, 256), 65536)), 256>>>(softmax, dropout, i64(b * s * dk), p, seed)
// @kbx launch sgemm128<<<dim3(max(1, cdiv(dout, 128)), max(1, cdiv(b * s, 128))), 256>>>(dropout, weight2, matmul2, i64(b * s), dout, dk, dk, i64(1), dout, i64(1))
// @kbx launch add_k<<<max(1, min(cdiv(b * s * dout, 256), 65536)), 256>>>(matmul2, residual, add, i64(b * s * dout))
// @kbx launch layer_norm_rows<<<max(1, min(b * s, 65536)), 256>>>(add, y, i64(b * s), dout, eps)

#include <kbx/rng.h>

// C[M, N] (row-major) = A @ B with A(m, k) = a[m * sam + k * sak], B(k, n) = b[k * sbk + n * sbn]:
// a 256-thread block computes a 128 x 128 tile of C, staging k through shared memory 8 at a time;
// each thread accumulates an 8 x 8 register block (rows ty + 16 i, columns tx + 16 j) with a
// sequential fmaf chain over k (f32, no TF32). Tile loads walk whichever axis of A / B has unit
// stride, so they are coalesced for either layout; out-of-range elements load as 0.
#define GT 128
#define GK 8

extern "C" __global__ void __launch_bounds__(256)
sgemm128(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long M, long long N,
         long long K, long long sam, long long sak, long long sbk, long long sbn)
{
	__shared__ float As[GK][GT + 4];
	__shared__ float Bs[GK][GT + 4];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long m0 = (long long)blockIdx.y * GT, n0 = (long long)blockIdx.x * GT;
	float acc[8][8];
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;
	for (long long k0 = 0; k0 < K; k0 += GK) {
		for (int e = tid; e < GT * GK; e += 256) {
			int r, kk;
			if (sak == 1) {
				kk = e % GK;
				r = e / GK;
			} else {
				r = e % GT;
				kk = e / GT;
			}
			const long long m = m0 + r, k = k0 + kk;
			As[kk][r] = (m < M && k < K) ? a[m * sam + k * sak] : 0.0f;
		}
		for (int e = tid; e < GT * GK; e += 256) {
			int col, kk;
			if (sbn == 1) {
				col = e % GT;
				kk = e / GT;
			} else {
				kk = e % GK;
				col = e / GK;
			}
			const long long n = n0 + col, k = k0 + kk;
			Bs[kk][col] = (n < N && k < K) ? b[k * sbk + n * sbn] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < GK; kk++) {
			float av[8], bv[8];
			for (int i = 0; i < 8; i++)
				av[i] = As[kk][ty + 16 * i];
			for (int j = 0; j < 8; j++)
				bv[j] = Bs[kk][tx + 16 * j];
			for (int i = 0; i < 8; i++)
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 8; i++) {
		const long long m = m0 + ty + 16 * i;
		if (m >= M)
			continue;
		for (int j = 0; j < 8; j++) {
			const long long n = n0 + tx + 16 * j;
			if (n < N)
				c[m * N + n] = acc[i][j];
		}
	}
}

#define NEG_INF __longlong_as_double(0xfff0000000000000ULL)

// Merge (m2, s2) into (m, s): m the max (NaN wins), s the sum of exp(v - m); a part whose max is -inf
// contributes nothing.
static __device__ __forceinline__ void merge(double& m, double& s, double m2, double s2)
{
	const double mm = (m != m || m2 != m2) ? m + m2 : (m > m2 ? m : m2);
	const double a = m == NEG_INF ? 0.0 : s * exp(m - mm);
	const double c = m2 == NEG_INF ? 0.0 : s2 * exp(m2 - mm);
	m = mm;
	s = a + c;
}

// One block per row (grid-stride): an online (max, sum) pair per thread in f64, merged over the
// block; then y = exp(v - max) / sum in f64, rounded once. A NaN or +inf logit makes the row NaN.
extern "C" __global__ void __launch_bounds__(256)
softmax_rows(const float* __restrict__ x, float* __restrict__ y, long long rows, long long cols)
{
	__shared__ double sm[8], ss[8];
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float* row = x + r * cols;
		double m = NEG_INF, s = 0.0;
		for (long long k = threadIdx.x; k < cols; k += 256)
			merge(m, s, (double)row[k], 1.0);
		for (int off = 16; off > 0; off >>= 1)
			merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
		if ((threadIdx.x & 31) == 0) {
			sm[threadIdx.x >> 5] = m;
			ss[threadIdx.x >> 5] = s;
		}
		__syncthreads();
		m = NEG_INF;
		s = 0.0;
		for (int w = 0; w < 8; w++)
			merge(m, s, sm[w], ss[w]);
		__syncthreads();
		const double inv = m == NEG_INF ? __longlong_as_double(0x7ff8000000000000ULL) : 1.0 / s;
		for (long long k = threadIdx.x; k < cols; k += 256)
			y[r * cols + k] = (float)(exp((double)row[k] - m) * inv);
	}
}

extern "C" __global__ void __launch_bounds__(256)
dropout_k(const float* __restrict__ x, float* __restrict__ y, long long total, float p, long long seed)
{
	const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const bool keep = p < 1.0f && kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p;
		y[i] = keep ? x[i] : 0.0f; // BUG: the kept values are not scaled by 1 / (1 - p)
	}
}

extern "C" __global__ void __launch_bounds__(256)
add_k(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long total)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
		c[i] = __fadd_rn(a[i], b[i]);
}

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum(double v, double* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int w = 0; w < 8; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

// One block per row: mean and biased variance in f64 (two passes), mean and rstd rounded to f32,
// y = (v - mean) * rstd in f32 as PyTorch.
extern "C" __global__ void __launch_bounds__(256)
layer_norm_rows(const float* __restrict__ x, float* __restrict__ y, long long rows, long long cols, float eps)
{
	__shared__ double sh[8];
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float* row = x + r * cols;
		double s = 0.0;
		for (long long k = threadIdx.x; k < cols; k += 256)
			s += (double)row[k];
		const double mean = block_sum(s, sh) / (double)cols;
		double q = 0.0;
		for (long long k = threadIdx.x; k < cols; k += 256) {
			const double d = (double)row[k] - mean;
			q += d * d;
		}
		const double var = block_sum(q, sh) / (double)cols;
		const float mean_f = (float)mean, rstd = (float)(1.0 / sqrt(var + (double)eps));
		for (long long k = threadIdx.x; k < cols; k += 256)
			y[r * cols + k] = __fmul_rn(__fsub_rn(row[k], mean_f), rstd);
	}
}
