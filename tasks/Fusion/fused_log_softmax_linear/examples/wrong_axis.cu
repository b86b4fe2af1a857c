// @kbx expect wrong
// Mistake: normalising over the wrong axis: log_softmax is taken along the other dimension of the
// [m, n] logits (down the columns for dim = 1, along the rows for dim = 0). The `matmul` and `add`
// stages are the reference's (they match; the statistics live under other names), so the output
// is the first to differ.
//
// @kbx scratch matmul f32 [m, n]
// @kbx scratch add f32 [m, n]
// @kbx scratch lsm_max f64 [(1 - dim) * m + dim * n]
// @kbx scratch lsm_logsum f64 [(1 - dim) * m + dim * n]
// @kbx launch matmul_nt<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(m, 32))), 256>>>(input, weight, matmul, m, k, n)
// @kbx launch add_bias<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(matmul, bias, add, i64(m * n), n, has_bias)
// @kbx launch lsm_stats<<<max(1, ((1 - dim) * m + dim) * cdiv((1 - dim) + dim * n, 32)), 256>>>(add, lsm_max, lsm_logsum, i64((1 - dim) * m + dim), i64((1 - dim) * n + dim * m), i64((1 - dim) + dim * n))
// @kbx launch lsm_apply<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(add, lsm_max, lsm_logsum, y, i64(m * n), i64((1 - dim) * n + dim * m), i64((1 - dim) + dim * n))

#define TM 32
#define TN 128
#define TK 16

// c[m, n] = a[m, k] @ b[n, k]^T
extern "C" __global__ void __launch_bounds__(256)
matmul_nt(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long m, long long k,
          long long n)
{
	__shared__ double As[TK][TM + 1];
	__shared__ double Bs[TK][TN + 1];
	const int tid = threadIdx.x, tx = tid % 32, ty = tid / 32;
	const long long row0 = (long long)blockIdx.y * TM, col0 = (long long)blockIdx.x * TN;
	double acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0;
	for (long long k0 = 0; k0 < k; k0 += TK) {
		for (int r = 0; r < 2; r++) {
			int idx = tid + 256 * r, row = idx / TK, kk = idx % TK;
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < k) ? (double)a[gr * k + gk] : 0.0;
		}
		for (int r = 0; r < 8; r++) {
			int idx = tid + 256 * r, col = idx / TK, kk = idx % TK;
			long long gc = col0 + col, gk = k0 + kk;
			Bs[kk][col] = (gc < n && gk < k) ? (double)b[gc * k + gk] : 0.0;
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
				c[gr * n + gc] = (float)acc[i][j];
		}
	}
}

extern "C" __global__ void __launch_bounds__(256)
add_bias(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y, long long total, long long n,
         int has_bias)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride)
		y[e] = has_bias ? __fadd_rn(x[e], bias[e % n]) : x[e];
}

// max that propagates NaN
static __device__ __forceinline__ double nmax(double a, double b)
{
	return (a != a || a > b) ? a : b;
}

extern "C" __global__ void __launch_bounds__(256)
lsm_stats(const float* __restrict__ x, double* __restrict__ mx, double* __restrict__ logsum, long long outer,
          long long len, long long inner)
{
	__shared__ double sh[256];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (inner == 1) {
		const long long line = blockIdx.x;
		if (line >= outer)
			return;
		const float* p = x + line * len;
		double v = -__longlong_as_double(0x7ff0000000000000LL);
		for (long long e = threadIdx.x; e < len; e += 256)
			v = nmax(v, (double)p[e]);
		sh[threadIdx.x] = v;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] = nmax(sh[threadIdx.x], sh[threadIdx.x + s]);
			__syncthreads();
		}
		const double m = sh[0];
		__syncthreads();
		double s1 = 0.0;
		for (long long e = threadIdx.x; e < len; e += 256)
			s1 += exp((double)p[e] - m);
		sh[threadIdx.x] = s1;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] += sh[threadIdx.x + s];
			__syncthreads();
		}
		if (threadIdx.x == 0) {
			mx[line] = m;
			logsum[line] = log(sh[0]);
		}
		return;
	}
	// inner > 1: lines (o, l) for 32 consecutive l; lane = l, warps stride along the line
	const long long tiles = (inner + 31) / 32;
	const long long o = blockIdx.x / tiles, l = (blockIdx.x % tiles) * 32 + lane;
	if (o >= outer)
		return;
	const bool ok = l < inner;
	const float* p = x + o * len * inner + l;
	double v = -__longlong_as_double(0x7ff0000000000000LL);
	if (ok)
		for (long long e = warp; e < len; e += 8)
			v = nmax(v, (double)p[e * inner]);
	sh[threadIdx.x] = v;
	__syncthreads();
	double m = sh[lane];
	for (int w = 1; w < 8; w++)
		m = nmax(m, sh[w * 32 + lane]);
	__syncthreads();
	double s1 = 0.0;
	if (ok)
		for (long long e = warp; e < len; e += 8)
			s1 += exp((double)p[e * inner] - m);
	sh[threadIdx.x] = s1;
	__syncthreads();
	if (warp == 0 && ok) {
		for (int w = 1; w < 8; w++)
			s1 += sh[w * 32 + lane];
		mx[o * inner + l] = m;
		logsum[o * inner + l] = log(s1);
	}
}

extern "C" __global__ void __launch_bounds__(256)
lsm_apply(const float* __restrict__ x, const double* __restrict__ mx, const double* __restrict__ logsum,
          float* __restrict__ y, long long total, long long len, long long inner)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		// e = (o * len + j) * inner + l -> line o * inner + l
		const long long l = e % inner, o = e / (len * inner);
		const long long line = o * inner + l;
		y[e] = (float)(((double)x[e] - mx[line]) - logsum[line]);
	}
}
