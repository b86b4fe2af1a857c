// fftn over the last two dims of x[b, r, c], cropped / zero-padded to [s0, s1], scaled by norm; f32
// arithmetic on complex64 (float2). Normalisation: the scale (1, 1/sqrt(s0 s1) or 1/(s0 s1)) multiplies
// the input as it is loaded (the transform is linear, so this is the same as scaling the output).
//
// Passes (every launch is made; a pass that has nothing to do returns at once):
//   fft_last_four_step  s1 > 8192 only (s1 a power of two): the four-step split s1 = L1 * 8192. Each
//                       block takes 8192 / L1 adjacent columns n2 of the [L1][8192] view of a row,
//                       loads them (coalesced runs, with the crop / padding / scale), does length-L1
//                       FFTs down the columns in shared memory, multiplies by W_s1^(n2 k1) and writes
//                       the scratch t.
//   fft_rows            the last axis: rows of length s1 <= 8192 loaded from x (crop, padding,
//                       scale) and written to y, 8192 / s1 rows per block; or, for s1 > 8192, the
//                       length-8192 rows of t, in place.
//   fft_transpose       s1 > 8192 only: t[q][k1][k2] -> y[q][k2][k1] (32 x 32 tiles through shared
//                       memory), which puts X[k1 + L1 k2] in natural order.
//   fft_cols            s0 > 1 only: the columns of y (length s0, stride s1), in place, up to
//                       8192 / s0 adjacent columns per block (coalesced rows of the tile).
// Each in-block transform is a Stockham autosort FFT in 64 KB of shared memory for power-of-two
// lengths: radix-4 stages (a radix-2 stage last when log2 L is odd), each thread keeping its
// butterflies in registers between two barriers, twiddles from sincospif of an exact fraction. Other
// lengths use a direct DFT per output with f64 accumulation and f64 twiddles (O(L^2), for the
// correctness cases' odd sizes; the perf sizes are powers of two).
// Accuracy: an f32 Stockham FFT has an rms relative error of a few ulp times log2(n); a CPU model of
// these exact passes (radix order, twiddles, four-step with a reduced tile) against numpy's f64 FFT
// stays within 0.22 of 1e-5 + 1e-5 |y| (per component) on the test's 16 x 16 randn cases (0.52 at
// worst over 1500 outlier draws), and within 0.05 on the ortho cases up to 65536; the task's
// atol = 5e-5 leaves room for a candidate's own f32 error of the same size.
// Perf (1-D, n = 2^12 .. 2^23): n <= 8192 is one block-per-row pass; above, three memory passes
// (four-step columns, rows, transpose).

// @kbx scratch t c64 [b * s0 * s1]
// @kbx launch fft_last_four_step<<<max(1, b * s0 * (s1 / 8192)), 512, 65536>>>(x, t, b, r, c, s0, s1, norm)
// @kbx launch fft_rows<<<max(1, cdiv(b * s0 * max(1, s1 / 8192), max(1, 8192 / s1))), 512, 65536>>>(x, t, y, b, r, c, s0, s1, norm)
// @kbx launch fft_transpose<<<max(1, min(b * s0 * (s1 / 8192) * 256, sms * 16)), dim3(32, 8)>>>(t, y, b, s0, s1)
// @kbx launch fft_cols<<<max(1, b * cdiv(s1, max(1, min(s1, 8192 / s0))) * min(1, s0 - 1)), 512, 65536>>>(y, b, s0, s1)

#define TILE 8192    /* complex elements in the 64 KB shared tile */
#define THREADS 512

__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
	return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__device__ __forceinline__ float norm_scale(int norm, long long count)
{
	if (norm == 1)
		return (float)(1.0 / sqrt((double)count));
	if (norm == 2)
		return (float)(1.0 / (double)count);
	return 1.0f;
}

/* In-register DFTs of 2 and 4 points (forward: W_4 = -i). */
__device__ __forceinline__ void butterfly(float2 (&v)[2])
{
	float2 a = v[0], b = v[1];
	v[0] = make_float2(a.x + b.x, a.y + b.y);
	v[1] = make_float2(a.x - b.x, a.y - b.y);
}

__device__ __forceinline__ void butterfly(float2 (&v)[4])
{
	float2 t0 = make_float2(v[0].x + v[2].x, v[0].y + v[2].y);
	float2 t1 = make_float2(v[0].x - v[2].x, v[0].y - v[2].y);
	float2 t2 = make_float2(v[1].x + v[3].x, v[1].y + v[3].y);
	float2 t3 = make_float2(v[1].x - v[3].x, v[1].y - v[3].y);
	v[0] = make_float2(t0.x + t2.x, t0.y + t2.y);
	v[1] = make_float2(t1.x + t3.y, t1.y - t3.x); /* t1 - i t3 */
	v[2] = make_float2(t0.x - t2.x, t0.y - t2.y);
	v[3] = make_float2(t1.x - t3.y, t1.y + t3.x); /* t1 + i t3 */
}

/* One Stockham stage of radix R over G sequences of length L held in s: element (g, n) at
   s[n * sn + g * sg]. Butterfly j of a sequence reads n = j + r * L/R (r < R), multiplies input r by
   W_(Ns R)^(r k) with k = j mod Ns, does an R-point DFT and writes output r to
   (j / Ns) * Ns * R + k + r * Ns. All reads happen before the barrier, all writes after it. */
template <int R>
__device__ __forceinline__ void stockham_stage(float2 *s, int L, int G, int sn, int sg, bool gfast, int Ns)
{
	const int MAXB = TILE / (THREADS * R);
	const int M = L / R, count = G * M;
	float2 v[MAXB][R];
	int out[MAXB];
#pragma unroll
	for (int q = 0; q < MAXB; q++) {
		int j = threadIdx.x + q * THREADS;
		out[q] = -1;
		if (j >= count)
			continue;
		int g, jj;
		if (gfast) {
			g = j % G;
			jj = j / G;
		} else {
			jj = j % M;
			g = j / M;
		}
		int k = jj & (Ns - 1);
#pragma unroll
		for (int r = 0; r < R; r++)
			v[q][r] = s[(jj + r * M) * sn + g * sg];
		if (k) {
#pragma unroll
			for (int r = 1; r < R; r++) {
				float sw, cw;
				sincospif((float)(-2 * r * k) / (float)(Ns * R), &sw, &cw);
				v[q][r] = cmul(v[q][r], make_float2(cw, sw));
			}
		}
		butterfly(v[q]);
		out[q] = ((jj / Ns) * Ns * R + k) * sn + g * sg;
	}
	__syncthreads();
#pragma unroll
	for (int q = 0; q < MAXB; q++)
		if (out[q] >= 0) {
#pragma unroll
			for (int r = 0; r < R; r++)
				s[out[q] + r * Ns * sn] = v[q][r];
		}
	__syncthreads();
}

/* Forward FFT of G sequences of power-of-two length L (G * L <= TILE) in shared memory, natural order in
   and out. gfast: consecutive threads take consecutive sequences (column tiles, sg = 1). */
__device__ void smem_fft_pow2(float2 *s, int L, int G, int sn, int sg, bool gfast)
{
	int Ns = 1;
	while (Ns < L) {
		if (L / Ns >= 4) {
			stockham_stage<4>(s, L, G, sn, sg, gfast, Ns);
			Ns *= 4;
		} else {
			stockham_stage<2>(s, L, G, sn, sg, gfast, Ns);
			Ns *= 2;
		}
	}
}

/* Output k of the length-L DFT of the sequence s[0], s[sn], ..., accumulated in f64. */
__device__ float2 dft_point(const float2 *s, int L, int sn, int k)
{
	double re = 0.0, im = 0.0;
	int m = 0; /* n * k mod L */
	for (int n = 0; n < L; n++) {
		double sw, cw;
		sincospi(-2.0 * (double)m / (double)L, &sw, &cw);
		float2 v = s[n * sn];
		re += (double)v.x * cw - (double)v.y * sw;
		im += (double)v.x * sw + (double)v.y * cw;
		m += k;
		if (m >= L)
			m -= L;
	}
	return make_float2((float)re, (float)im);
}

/* x' (cropped / zero-padded to [s0, s1]) at logical row q = m * s0 + i, column j, times scale. */
__device__ __forceinline__ float2 load_padded(const float2 *__restrict__ x, long long q, long long j, long long r,
					      long long c, long long s0, float scale)
{
	long long m = q / s0, i = q - m * s0;
	if (i >= r || j >= c)
		return make_float2(0.0f, 0.0f);
	float2 v = x[(m * r + i) * c + j];
	return make_float2(v.x * scale, v.y * scale);
}

extern "C" __global__ void __launch_bounds__(THREADS)
fft_last_four_step(const float2 *__restrict__ x, float2 *__restrict__ t, long long b, long long r, long long c,
		   long long s0, long long s1, int norm)
{
	if (s1 <= TILE)
		return;
	extern __shared__ float2 s[];
	const int L1 = (int)(s1 / TILE), C = TILE / L1;
	long long q = blockIdx.x / L1;
	if (q >= b * s0)
		return;
	long long n2base = (long long)(blockIdx.x % L1) * C;
	float scale = norm_scale(norm, s0 * s1);

	for (int e = threadIdx.x; e < TILE; e += THREADS) {
		int n1 = e / C, cc = e % C; /* tile element (n1, cc) at e = n1 * C + cc */
		s[e] = load_padded(x, q, (long long)n1 * TILE + n2base + cc, r, c, s0, scale);
	}
	__syncthreads();
	smem_fft_pow2(s, L1, C, C, 1, true);

	float2 *trow = t + q * s1;
	for (int e = threadIdx.x; e < TILE; e += THREADS) {
		int k1 = e / C, cc = e % C;
		long long n2 = n2base + cc;
		long long p = ((long long)k1 * n2) & (s1 - 1); /* s1 is a power of two */
		double sw, cw;
		sincospi(-2.0 * (double)p / (double)s1, &sw, &cw);
		trow[(long long)k1 * TILE + n2] = cmul(s[e], make_float2((float)cw, (float)sw));
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
fft_rows(const float2 *__restrict__ x, float2 *__restrict__ t, float2 *__restrict__ y, long long b, long long r,
	 long long c, long long s0, long long s1, int norm)
{
	extern __shared__ float2 s[];
	const bool big = s1 > TILE;
	const int L = big ? TILE : (int)s1;
	const int G = big ? 1 : TILE / L;
	long long nrows = big ? b * s0 * (s1 / TILE) : b * s0;
	long long row0 = (long long)blockIdx.x * G;
	if (row0 >= nrows)
		return;
	int here = (int)min((long long)G, nrows - row0);
	float scale = big ? 1.0f : norm_scale(norm, s0 * s1);

	for (int e = threadIdx.x; e < G * L; e += THREADS) {
		int g = e / L, n = e - g * L;
		float2 v = make_float2(0.0f, 0.0f);
		if (g < here)
			v = big ? t[(row0 + g) * TILE + n] : load_padded(x, row0 + g, n, r, c, s0, scale);
		s[e] = v;
	}
	__syncthreads();

	float2 *dst = big ? t : y;
	if ((L & (L - 1)) == 0) {
		smem_fft_pow2(s, L, G, 1, L, false);
		for (int e = threadIdx.x; e < here * L; e += THREADS)
			dst[row0 * L + e] = s[e];
	} else {
		for (int e = threadIdx.x; e < here * L; e += THREADS) {
			int g = e / L, k = e - g * L;
			dst[row0 * L + e] = dft_point(s + g * L, L, 1, k);
		}
	}
}

extern "C" __global__ void fft_transpose(const float2 *__restrict__ t, float2 *__restrict__ y, long long b, long long s0,
					 long long s1)
{
	if (s1 <= TILE)
		return;
	__shared__ float2 tile[32][33];
	const long long L1 = s1 / TILE;
	const long long tr = (L1 + 31) / 32, tc = TILE / 32, per = tr * tc;
	const long long total = b * s0 * per;
	for (long long ti = blockIdx.x; ti < total; ti += gridDim.x) {
		long long q = ti / per, rem = ti - q * per;
		long long r0 = (rem / tc) * 32, c0 = (rem % tc) * 32;
		const float2 *src = t + q * s1; /* [L1][TILE] */
		float2 *dst = y + q * s1;       /* [TILE][L1] */
		for (int k = threadIdx.y; k < 32; k += 8)
			if (r0 + k < L1)
				tile[k][threadIdx.x] = src[(r0 + k) * TILE + c0 + threadIdx.x];
		__syncthreads();
		for (int k = threadIdx.y; k < 32; k += 8)
			if (r0 + threadIdx.x < L1)
				dst[(c0 + k) * L1 + r0 + threadIdx.x] = tile[threadIdx.x][k];
		__syncthreads();
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
fft_cols(float2 *__restrict__ y, long long b, long long s0, long long s1)
{
	if (s0 <= 1)
		return;
	extern __shared__ float2 s[];
	const int L = (int)s0;
	const int C = (int)min(s1, (long long)(TILE / L));
	long long groups = (s1 + C - 1) / C;
	long long m = blockIdx.x / groups;
	if (m >= b)
		return;
	long long col0 = (blockIdx.x % groups) * C;
	int here = (int)min((long long)C, s1 - col0);
	float2 *base = y + m * s0 * s1 + col0;

	for (int e = threadIdx.x; e < L * C; e += THREADS) {
		int n = e / C, cc = e - n * C;
		s[e] = cc < here ? base[(long long)n * s1 + cc] : make_float2(0.0f, 0.0f);
	}
	__syncthreads();

	if ((L & (L - 1)) == 0) {
		smem_fft_pow2(s, L, C, C, 1, true);
		for (int e = threadIdx.x; e < L * C; e += THREADS) {
			int n = e / C, cc = e - n * C;
			if (cc < here)
				base[(long long)n * s1 + cc] = s[e];
		}
	} else {
		for (int e = threadIdx.x; e < L * C; e += THREADS) {
			int k = e / C, cc = e - k * C;
			if (cc < here)
				base[(long long)k * s1 + cc] = dft_point(s + cc, L, C, k);
		}
	}
}
