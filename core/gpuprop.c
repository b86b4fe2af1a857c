/*
 * The verifiers' figures on the GPU: see gpuprop.h. The kernels write one partial (a sum, a
 * maximum or counts) per thread block, which the host reduces in block order.
 *
 * qr: kbx_qr_resid and kbx_qr_orth are f64 products tiled 64 x 64 through shared memory (16 terms
 * of the inner dimension at a time, 4 x 4 outputs a thread): about 1.4e11 flops at n = 4096, tens
 * of milliseconds, where the host took seconds; kbx_qr_rows and kbx_sumsq the rest.
 * Uniform draws: kbx_unit_sums (two passes) and kbx_gather. Independence of eigenvectors: the
 * kbx_piv_* kernels, two launches per pivoted Gram-Schmidt step.
 */
#include "gpuprop.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define GP_T 256      /* threads a block (the kernels' GP_T) */
#define GP_TS 64      /* tile side (GP_TS) */
#define GP_MAX_GRID 65535LL
#define GP_SUMSQ_BLOCKS 256LL

static const char source[] =
	"/* kbx's verifiers' figures (core/gpuprop.h): f64 arithmetic on f32 data. */\n"
	"#define GP_T 256\n"
	"#define GP_TS 64\n"
	"#define GP_KS 16\n"
	"\n"
	"__device__ __forceinline__ double gp_inf(void)\n"
	"{\n"
	"	return __longlong_as_double(0x7ff0000000000000LL);\n"
	"}\n"
	"\n"
	"/* |v|, with NaN as inf (a maximum must not lose it) */\n"
	"__device__ __forceinline__ double gp_absv(double v)\n"
	"{\n"
	"	return v != v ? gp_inf() : fabs(v);\n"
	"}\n"
	"\n"
	"/* v of every thread added by a tree in a fixed order; every thread gets the sum */\n"
	"__device__ double gp_block_sum(double v, double *red)\n"
	"{\n"
	"	int t = threadIdx.x, k;\n"
	"	double s;\n"
	"\n"
	"	red[t] = v;\n"
	"	__syncthreads();\n"
	"	for (k = GP_T / 2; k > 0; k >>= 1) {\n"
	"		if (t < k)\n"
	"			red[t] = __dadd_rn(red[t], red[t + k]);\n"
	"		__syncthreads();\n"
	"	}\n"
	"	s = red[0];\n"
	"	__syncthreads();\n"
	"	return s;\n"
	"}\n"
	"\n"
	"/* the largest v (each >= 0 or inf) of every thread */\n"
	"__device__ double gp_block_max(double v, double *red)\n"
	"{\n"
	"	int t = threadIdx.x, k;\n"
	"	double s;\n"
	"\n"
	"	red[t] = v;\n"
	"	__syncthreads();\n"
	"	for (k = GP_T / 2; k > 0; k >>= 1) {\n"
	"		if (t < k && red[t + k] > red[t])\n"
	"			red[t] = red[t + k];\n"
	"		__syncthreads();\n"
	"	}\n"
	"	s = red[0];\n"
	"	__syncthreads();\n"
	"	return s;\n"
	"}\n"
	"\n"
	"/* One 64 x 64 tile of Q R - A (Q [m x k], R [k x n], A [m x n] of matrix blockIdx.z): the sum of\n"
	" * its squares into partial[block]. Thread t holds rows t / 16 + 16 a and columns t % 16 + 16 c. */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_qr_resid(const float *A, const float *Q, const float *R,\n"
	"								  long long m, long long k, long long n, double *partial)\n"
	"{\n"
	"	__shared__ double qs[GP_KS][GP_TS + 1];\n"
	"	__shared__ double rs[GP_KS][GP_TS + 1];\n"
	"	__shared__ double red[GP_T];\n"
	"	const float *Ab = A + (long long)blockIdx.z * m * n, *Qb = Q + (long long)blockIdx.z * m * k,\n"
	"		    *Rb = R + (long long)blockIdx.z * k * n;\n"
	"	long long i0 = (long long)blockIdx.y * GP_TS, j0 = (long long)blockIdx.x * GP_TS, k0;\n"
	"	int t = threadIdx.x, ti = t / 16, tj = t % 16, a, c, e, kk;\n"
	"	double acc[4][4], s = 0;\n"
	"\n"
	"	for (a = 0; a < 4; a++)\n"
	"		for (c = 0; c < 4; c++)\n"
	"			acc[a][c] = 0;\n"
	"	for (k0 = 0; k0 < k; k0 += GP_KS) {\n"
	"		for (e = t; e < GP_TS * GP_KS; e += GP_T) {\n"
	"			long long gi = i0 + e / GP_KS, gk = k0 + e % GP_KS;\n"
	"\n"
	"			qs[e % GP_KS][e / GP_KS] = gi < m && gk < k ? (double)Qb[gi * k + gk] : 0.0;\n"
	"		}\n"
	"		for (e = t; e < GP_TS * GP_KS; e += GP_T) {\n"
	"			long long gk = k0 + e / GP_TS, gj = j0 + e % GP_TS;\n"
	"\n"
	"			rs[e / GP_TS][e % GP_TS] = gk < k && gj < n ? (double)Rb[gk * n + gj] : 0.0;\n"
	"		}\n"
	"		__syncthreads();\n"
	"		for (kk = 0; kk < GP_KS; kk++) {\n"
	"			double qv[4], rv[4];\n"
	"\n"
	"			for (a = 0; a < 4; a++)\n"
	"				qv[a] = qs[kk][ti + 16 * a];\n"
	"			for (c = 0; c < 4; c++)\n"
	"				rv[c] = rs[kk][tj + 16 * c];\n"
	"			for (a = 0; a < 4; a++)\n"
	"				for (c = 0; c < 4; c++)\n"
	"					acc[a][c] = fma(qv[a], rv[c], acc[a][c]);\n"
	"		}\n"
	"		__syncthreads();\n"
	"	}\n"
	"	for (a = 0; a < 4; a++)\n"
	"		for (c = 0; c < 4; c++) {\n"
	"			long long gi = i0 + ti + 16 * a, gj = j0 + tj + 16 * c;\n"
	"\n"
	"			if (gi < m && gj < n) {\n"
	"				double d = acc[a][c] - (double)Ab[gi * n + gj];\n"
	"\n"
	"				s = __dadd_rn(s, __dmul_rn(d, d));\n"
	"			}\n"
	"		}\n"
	"	s = gp_block_sum(s, red);\n"
	"	if (t == 0)\n"
	"		partial[((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x] = s;\n"
	"}\n"
	"\n"
	"/* One 64 x 64 tile of Q^T Q - I (Q [m x k] of matrix blockIdx.z): the largest |element| into\n"
	" * partial[block]. Q^T Q is symmetric (the same products in the same order on both sides), so\n"
	" * the tiles below the diagonal write 0. */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_qr_orth(const float *Q, long long m, long long k,\n"
	"								 double *partial)\n"
	"{\n"
	"	__shared__ double qi[GP_KS][GP_TS + 1];\n"
	"	__shared__ double qj[GP_KS][GP_TS + 1];\n"
	"	__shared__ double red[GP_T];\n"
	"	const float *Qb = Q + (long long)blockIdx.z * m * k;\n"
	"	long long i0 = (long long)blockIdx.y * GP_TS, j0 = (long long)blockIdx.x * GP_TS, r0;\n"
	"	long long out = ((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;\n"
	"	int t = threadIdx.x, ti = t / 16, tj = t % 16, a, c, e, rr;\n"
	"	double acc[4][4], worst = 0;\n"
	"\n"
	"	if (blockIdx.x < blockIdx.y) {\n"
	"		if (t == 0)\n"
	"			partial[out] = 0;\n"
	"		return;\n"
	"	}\n"
	"	for (a = 0; a < 4; a++)\n"
	"		for (c = 0; c < 4; c++)\n"
	"			acc[a][c] = 0;\n"
	"	for (r0 = 0; r0 < m; r0 += GP_KS) {\n"
	"		for (e = t; e < GP_TS * GP_KS; e += GP_T) {\n"
	"			long long gr = r0 + e / GP_TS, gi = i0 + e % GP_TS, gj = j0 + e % GP_TS;\n"
	"\n"
	"			qi[e / GP_TS][e % GP_TS] = gr < m && gi < k ? (double)Qb[gr * k + gi] : 0.0;\n"
	"			qj[e / GP_TS][e % GP_TS] = gr < m && gj < k ? (double)Qb[gr * k + gj] : 0.0;\n"
	"		}\n"
	"		__syncthreads();\n"
	"		for (rr = 0; rr < GP_KS; rr++) {\n"
	"			double av[4], bv[4];\n"
	"\n"
	"			for (a = 0; a < 4; a++)\n"
	"				av[a] = qi[rr][ti + 16 * a];\n"
	"			for (c = 0; c < 4; c++)\n"
	"				bv[c] = qj[rr][tj + 16 * c];\n"
	"			for (a = 0; a < 4; a++)\n"
	"				for (c = 0; c < 4; c++)\n"
	"					acc[a][c] = fma(av[a], bv[c], acc[a][c]);\n"
	"		}\n"
	"		__syncthreads();\n"
	"	}\n"
	"	for (a = 0; a < 4; a++)\n"
	"		for (c = 0; c < 4; c++) {\n"
	"			long long gi = i0 + ti + 16 * a, gj = j0 + tj + 16 * c;\n"
	"\n"
	"			if (gi < k && gj < k) {\n"
	"				double d = gp_absv(acc[a][c] - (gi == gj ? 1.0 : 0.0));\n"
	"\n"
	"				if (d > worst)\n"
	"					worst = d;\n"
	"			}\n"
	"		}\n"
	"	worst = gp_block_max(worst, red);\n"
	"	if (t == 0)\n"
	"		partial[out] = worst;\n"
	"}\n"
	"\n"
	"/* Row blockIdx.x of R and R_ref [rows x n] (matrix blockIdx.y): the sign that makes the diagonal\n"
	" * agree (the product of the two diagonal elements, column 0 past the last column), then the\n"
	" * largest |R below the diagonal| and |R - sign R_ref| into partial[2 * row], [2 * row + 1]. */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_qr_rows(const float *R, const float *Rref, long long rows,\n"
	"								 long long n, double *partial)\n"
	"{\n"
	"	__shared__ double red[GP_T];\n"
	"	long long i = blockIdx.x, row = (long long)blockIdx.y * rows + i, j;\n"
	"	const float *Ri = R + row * n, *Fi = Rref + row * n;\n"
	"	long long dc = i < n ? i : 0;\n"
	"	double d = (double)Ri[dc] * (double)Fi[dc], sgn = d < 0 ? -1.0 : 1.0, lower = 0, diff = 0;\n"
	"	int t = threadIdx.x;\n"
	"\n"
	"	for (j = t; j < n; j += GP_T) {\n"
	"		double v = (double)Ri[j], e;\n"
	"\n"
	"		if (j < i && gp_absv(v) > lower)\n"
	"			lower = gp_absv(v);\n"
	"		e = gp_absv(v - sgn * (double)Fi[j]);\n"
	"		if (e > diff)\n"
	"			diff = e;\n"
	"	}\n"
	"	lower = gp_block_max(lower, red);\n"
	"	diff = gp_block_max(diff, red);\n"
	"	if (t == 0) {\n"
	"		partial[2 * row] = lower;\n"
	"		partial[2 * row + 1] = diff;\n"
	"	}\n"
	"}\n"
	"\n"
	"/* The sum of squares of A's elements [per] of matrix blockIdx.y, gridDim.x blocks striding over\n"
	" * them, one partial each. */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_sumsq(const float *A, long long per, double *partial)\n"
	"{\n"
	"	__shared__ double red[GP_T];\n"
	"	const float *Ab = A + (long long)blockIdx.y * per;\n"
	"	long long e, stride = (long long)gridDim.x * GP_T;\n"
	"	double s = 0;\n"
	"\n"
	"	for (e = (long long)blockIdx.x * GP_T + threadIdx.x; e < per; e += stride) {\n"
	"		double v = (double)Ab[e];\n"
	"\n"
	"		s = __dadd_rn(s, __dmul_rn(v, v));\n"
	"	}\n"
	"	s = gp_block_sum(s, red);\n"
	"	if (threadIdx.x == 0)\n"
	"		partial[(long long)blockIdx.y * gridDim.x + blockIdx.x] = s;\n"
	"}\n"
	"\n"
	"/* Random draws tested against U(0, 1) (the distribution verifier, engine_verify_distribution):\n"
	" * pass 1 sums the values, counts those outside [0, 1) and those that differ from other's (when\n"
	" * other is given: the run with another seed); pass 2 sums the squared deviations from mean. One\n"
	" * partial sum and two counts per block, gridDim.x blocks striding over the n values. */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_unit_sums(const float *a, const float *other, long long n,\n"
	"								   int pass, double mean, double *psum,\n"
	"								   unsigned long long *pcount)\n"
	"{\n"
	"	__shared__ double red[GP_T];\n"
	"	__shared__ unsigned long long counts[2];\n"
	"	long long e, stride = (long long)gridDim.x * GP_T;\n"
	"	unsigned long long outside = 0, differ = 0;\n"
	"	double s = 0;\n"
	"\n"
	"	if (threadIdx.x < 2)\n"
	"		counts[threadIdx.x] = 0;\n"
	"	__syncthreads();\n"
	"	for (e = (long long)blockIdx.x * GP_T + threadIdx.x; e < n; e += stride) {\n"
	"		double x = (double)a[e];\n"
	"\n"
	"		if (pass == 2) {\n"
	"			s = __dadd_rn(s, __dmul_rn(x - mean, x - mean));\n"
	"			continue;\n"
	"		}\n"
	"		if (!(x >= 0 && x < 1))\n"
	"			outside++;\n"
	"		s = __dadd_rn(s, x);\n"
	"		if (other && (double)other[e] != x)\n"
	"			differ++;\n"
	"	}\n"
	"	if (outside)\n"
	"		atomicAdd(&counts[0], outside);\n"
	"	if (differ)\n"
	"		atomicAdd(&counts[1], differ);\n"
	"	s = gp_block_sum(s, red);\n"
	"	if (threadIdx.x == 0) {\n"
	"		psum[blockIdx.x] = s;\n"
	"		pcount[2 * blockIdx.x] = counts[0];\n"
	"		pcount[2 * blockIdx.x + 1] = counts[1];\n"
	"	}\n"
	"}\n"
	"\n"
	"/* out[i] = a[i * stride] for i < count: an evenly strided sample, copied alone */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_gather(const float *a, long long stride, long long count,\n"
	"								float *out)\n"
	"{\n"
	"	long long i;\n"
	"\n"
	"	for (i = (long long)blockIdx.x * GP_T + threadIdx.x; i < count; i += (long long)gridDim.x * GP_T)\n"
	"		out[i] = a[i * stride];\n"
	"}\n"
	"\n"
	"/* How independent the columns of a complex n x n matrix are (dense_min_pivot's modified\n"
	" * Gram-Schmidt with column pivoting, on the device): column j of re / im at [j * n, (j + 1) * n).\n"
	" * state[0]: the smallest pivot so far, state[1]: 1 once stopped. kbx_piv_init widens V [n x n]\n"
	" * (c64, row-major, vectors in columns) into the columns; kbx_piv_norms: one block a column, its\n"
	" * squared norm (rem) and length (len); then per step k kbx_piv_select (one block: the column with\n"
	" * the largest remaining norm relative to its length, first on a tie, moved to k and normalized)\n"
	" * and kbx_piv_update (one block per later column: made orthogonal to q_k, its remaining norm). */\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_piv_init(const float *v, long long n, double *re, double *im,\n"
	"								  double *state)\n"
	"{\n"
	"	long long e, nn = n * n;\n"
	"\n"
	"	for (e = (long long)blockIdx.x * GP_T + threadIdx.x; e < nn; e += (long long)gridDim.x * GP_T) {\n"
	"		long long i = e / n, j = e % n;\n"
	"\n"
	"		re[j * n + i] = (double)v[2 * e];\n"
	"		im[j * n + i] = (double)v[2 * e + 1];\n"
	"	}\n"
	"	if (blockIdx.x == 0 && threadIdx.x == 0) {\n"
	"		state[0] = gp_inf();\n"
	"		state[1] = 0;\n"
	"	}\n"
	"}\n"
	"\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_piv_norms(const double *re, const double *im, long long n,\n"
	"								   double *len, double *rem)\n"
	"{\n"
	"	__shared__ double red[GP_T];\n"
	"	const double *xr = re + (long long)blockIdx.x * n, *xi = im + (long long)blockIdx.x * n;\n"
	"	double s = 0;\n"
	"	long long i;\n"
	"\n"
	"	for (i = threadIdx.x; i < n; i += GP_T)\n"
	"		s = __dadd_rn(s, __dadd_rn(__dmul_rn(xr[i], xr[i]), __dmul_rn(xi[i], xi[i])));\n"
	"	s = gp_block_sum(s, red);\n"
	"	if (threadIdx.x == 0) {\n"
	"		rem[blockIdx.x] = s;\n"
	"		len[blockIdx.x] = sqrt(s);\n"
	"	}\n"
	"}\n"
	"\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_piv_select(double *re, double *im, long long n, long long k,\n"
	"								    double *len, double *rem, double *state)\n"
	"{\n"
	"	__shared__ double bs[GP_T];\n"
	"	__shared__ long long bj[GP_T];\n"
	"	__shared__ double best_s;\n"
	"	__shared__ long long piv_s;\n"
	"	int t = threadIdx.x, h;\n"
	"	long long j, i;\n"
	"	double best = -1, r;\n"
	"	long long piv = k;\n"
	"\n"
	"	if (state[1] != 0)\n"
	"		return;\n"
	"	for (j = k + t; j < n; j += GP_T) {\n"
	"		double s = len[j] > 0 ? sqrt(rem[j]) / len[j] : 0;\n"
	"\n"
	"		if (s > best) {\n"
	"			best = s;\n"
	"			piv = j;\n"
	"		}\n"
	"	}\n"
	"	bs[t] = best;\n"
	"	bj[t] = piv;\n"
	"	__syncthreads();\n"
	"	for (h = GP_T / 2; h > 0; h >>= 1) {\n"
	"		if (t < h && (bs[t + h] > bs[t] || (bs[t + h] == bs[t] && bj[t + h] < bj[t]))) {\n"
	"			bs[t] = bs[t + h];\n"
	"			bj[t] = bj[t + h];\n"
	"		}\n"
	"		__syncthreads();\n"
	"	}\n"
	"	if (t == 0) {\n"
	"		best_s = bs[0];\n"
	"		piv_s = bj[0];\n"
	"	}\n"
	"	__syncthreads();\n"
	"	best = best_s;\n"
	"	piv = piv_s;\n"
	"	if (piv != k) {\n"
	"		for (i = t; i < n; i += GP_T) {\n"
	"			double a = re[k * n + i], b = im[k * n + i];\n"
	"\n"
	"			re[k * n + i] = re[piv * n + i];\n"
	"			im[k * n + i] = im[piv * n + i];\n"
	"			re[piv * n + i] = a;\n"
	"			im[piv * n + i] = b;\n"
	"		}\n"
	"		__syncthreads();\n"
	"		if (t == 0) {\n"
	"			double a = len[k], b = rem[k];\n"
	"\n"
	"			len[k] = len[piv];\n"
	"			rem[k] = rem[piv];\n"
	"			len[piv] = a;\n"
	"			rem[piv] = b;\n"
	"		}\n"
	"		__syncthreads();\n"
	"	}\n"
	"	if (!(best > 0)) {\n"
	"		if (t == 0) {\n"
	"			state[0] = 0;\n"
	"			state[1] = 1;\n"
	"		}\n"
	"		return;\n"
	"	}\n"
	"	if (t == 0 && best < state[0])\n"
	"		state[0] = best;\n"
	"	r = best * len[k];\n"
	"	for (i = t; i < n; i += GP_T) {\n"
	"		re[k * n + i] /= r;\n"
	"		im[k * n + i] /= r;\n"
	"	}\n"
	"	if (t == 0 && k + 1 >= n)\n"
	"		state[1] = 1;\n"
	"}\n"
	"\n"
	"extern \"C\" __global__ void __launch_bounds__(GP_T) kbx_piv_update(double *re, double *im, long long n, long long k,\n"
	"								    double *rem, const double *state)\n"
	"{\n"
	"	__shared__ double red[GP_T];\n"
	"	long long j = k + 1 + blockIdx.x, i;\n"
	"	const double *qr = re + k * n, *qi = im + k * n;\n"
	"	double *xr = re + j * n, *xi = im + j * n, pr = 0, pi = 0, s = 0;\n"
	"\n"
	"	if (state[1] != 0 || j >= n)\n"
	"		return;   /* stopped (a zero pivot, or the last column) */\n"
	"	for (i = threadIdx.x; i < n; i += GP_T) {\n"
	"		pr += qr[i] * xr[i] + qi[i] * xi[i];\n"
	"		pi += qr[i] * xi[i] - qi[i] * xr[i];\n"
	"	}\n"
	"	pr = gp_block_sum(pr, red);\n"
	"	pi = gp_block_sum(pi, red);\n"
	"	for (i = threadIdx.x; i < n; i += GP_T) {\n"
	"		xr[i] -= pr * qr[i] - pi * qi[i];\n"
	"		xi[i] -= pr * qi[i] + pi * qr[i];\n"
	"		s += xr[i] * xr[i] + xi[i] * xi[i];\n"
	"	}\n"
	"	s = gp_block_sum(s, red);\n"
	"	if (threadIdx.x == 0)\n"
	"		rem[j] = s;\n"
	"}\n";

const char *gpuprop_source(void)
{
	return source;
}

struct gpuprop {
	struct gpu *g;
	struct gpu_module *m;
	gpu_function resid, orth, rows, sumsq, unit_sums, gather, piv_init, piv_norms, piv_select, piv_update;
};

enum kbx_status gpuprop_open(struct gpu *g, const void *image, struct gpuprop **out)
{
	struct gpuprop *p = xcalloc(1, sizeof(*p));
	enum kbx_status st;

	*out = NULL;
	p->g = g;
	st = gpu_module_load(g, image, &p->m);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_qr_resid", &p->resid);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_qr_orth", &p->orth);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_qr_rows", &p->rows);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_sumsq", &p->sumsq);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_unit_sums", &p->unit_sums);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_gather", &p->gather);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_piv_init", &p->piv_init);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_piv_norms", &p->piv_norms);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_piv_select", &p->piv_select);
	if (!st)
		st = gpu_module_function(g, p->m, "kbx_piv_update", &p->piv_update);
	if (st) {
		gpuprop_close(p);
		return kbx_wrap(st, "the GPU property checks");
	}
	*out = p;
	return KBX_OK;
}

void gpuprop_close(struct gpuprop *p)
{
	if (!p)
		return;
	if (p->m)
		gpu_module_unload(p->g, p->m);
	free(p);
}

static long long tiles(long long n)
{
	return (n + GP_TS - 1) / GP_TS;
}

/* The largest of partial[0 .. n), each >= 0 or inf. */
static double max_of(const double *partial, long long n)
{
	double worst = 0;
	long long i;

	for (i = 0; i < n; i++)
		if (!(partial[i] <= worst))
			worst = partial[i];
	return worst;
}

static double sum_of(const double *partial, long long n)
{
	double s = 0;
	long long i;

	for (i = 0; i < n; i++)
		s += partial[i];
	return s;
}

enum kbx_status gpuprop_qr(struct gpuprop *p, gpu_ptr a, gpu_ptr q, gpu_ptr r, gpu_ptr r_ref, long long batch,
			   long long m, long long n, long long qcols, long long rrows, struct gpuprop_qr_figures *out)
{
	long long nres, north, nrows, nsq, total, b;
	const long long limit = 1LL << 40;
	gpu_ptr partial = 0;
	double *host = NULL;
	enum kbx_status st;

	if (!p || !a || !q || !r || !r_ref)
		return kbx_error(KBX_EINVAL, "the GPU qr checks: no kernels or no buffer");
	if (batch < 1 || m < 1 || n < 1 || qcols < 1 || rrows != qcols || batch > GP_MAX_GRID || m > limit / n ||
	    m > limit / qcols || rrows > limit / n || tiles(m) > GP_MAX_GRID || tiles(qcols) > GP_MAX_GRID ||
	    batch > limit / (m * n))
		return kbx_error(KBX_EINVAL, "the GPU qr checks: sizes they do not take (batch %lld, A %lld x %lld, Q "
				 "%lld columns, R %lld rows)", batch, m, n, qcols, rrows);
	nres = tiles(n) * tiles(m) * batch;
	north = tiles(qcols) * tiles(qcols) * batch;
	nrows = 2 * rrows * batch;
	nsq = GP_SUMSQ_BLOCKS * batch;
	total = nres + north + nrows + nsq;
	st = gpu_alloc(p->g, (size_t)total * sizeof(double), &partial);
	if (!st) {
		gpu_ptr pres = partial, porth = pres + nres * sizeof(double), prows = porth + north * sizeof(double),
			psq = prows + nrows * sizeof(double);
		long long per = m * n;
		unsigned block[3] = { GP_T, 1, 1 };
		unsigned g_res[3] = { (unsigned)tiles(n), (unsigned)tiles(m), (unsigned)batch };
		unsigned g_orth[3] = { (unsigned)tiles(qcols), (unsigned)tiles(qcols), (unsigned)batch };
		unsigned g_rows[3] = { (unsigned)rrows, (unsigned)batch, 1 };
		unsigned g_sq[3] = { (unsigned)GP_SUMSQ_BLOCKS, (unsigned)batch, 1 };
		void *p_res[7] = { &a, &q, &r, &m, &qcols, &n, &pres };
		void *p_orth[4] = { &q, &m, &qcols, &porth };
		void *p_rows[5] = { &r, &r_ref, &rrows, &n, &prows };
		void *p_sq[3] = { &a, &per, &psq };

		st = gpu_launch(p->g, p->resid, "kbx_qr_resid", g_res, block, 0, p_res, 0);
		if (!st)
			st = gpu_launch(p->g, p->orth, "kbx_qr_orth", g_orth, block, 0, p_orth, 0);
		if (!st)
			st = gpu_launch(p->g, p->rows, "kbx_qr_rows", g_rows, block, 0, p_rows, 0);
		if (!st)
			st = gpu_launch(p->g, p->sumsq, "kbx_sumsq", g_sq, block, 0, p_sq, 0);
		host = xmalloc((size_t)total * sizeof(double));
		if (!st)
			st = gpu_download(p->g, host, partial, (size_t)total * sizeof(double));
		gpu_free(p->g, partial);
	}
	if (st) {
		free(host);
		return kbx_wrap(st, "the GPU qr checks");
	}
	for (b = 0; b < batch; b++) {
		const double *res = host + b * tiles(n) * tiles(m), *orth = host + nres + b * tiles(qcols) * tiles(qcols);
		const double *rows = host + nres + north + b * 2 * rrows, *sq = host + nres + north + nrows + b * GP_SUMSQ_BLOCKS;
		double na = sqrt(sum_of(sq, GP_SUMSQ_BLOCKS)), lower = 0, diff = 0;
		long long i;

		if (na == 0)
			na = 1;
		for (i = 0; i < rrows; i++) {
			if (!(rows[2 * i] <= lower))
				lower = rows[2 * i];
			if (!(rows[2 * i + 1] <= diff))
				diff = rows[2 * i + 1];
		}
		out[b].recon = sqrt(sum_of(res, tiles(n) * tiles(m))) / na;
		out[b].orth = max_of(orth, tiles(qcols) * tiles(qcols));
		out[b].lower = lower / na;
		out[b].diff = diff / na;
	}
	free(host);
	return KBX_OK;
}

/* ---- uniform draws -------------------------------------------------------------------------- */

#define GP_UNIT_BLOCKS 1024LL

/* One pass of kbx_unit_sums: the partial sums added in block order, the counts. */
static enum kbx_status unit_pass(struct gpuprop *p, gpu_ptr a, gpu_ptr other, long long n, int pass, double mean,
				 double *sum, unsigned long long *outside, unsigned long long *differ)
{
	long long blocks = (n + GP_T - 1) / GP_T < GP_UNIT_BLOCKS ? (n + GP_T - 1) / GP_T : GP_UNIT_BLOCKS, b;
	size_t bytes = (size_t)blocks * (sizeof(double) + 2 * sizeof(unsigned long long));
	unsigned grid[3] = { (unsigned)blocks, 1, 1 }, block[3] = { GP_T, 1, 1 };
	gpu_ptr psum = 0, pcount;
	void *params[7] = { &a, &other, &n, &pass, &mean, &psum, &pcount };
	unsigned char *host;
	enum kbx_status st;

	*sum = 0;
	*outside = *differ = 0;
	st = gpu_alloc(p->g, bytes, &psum);
	if (st)
		return st;
	pcount = psum + (size_t)blocks * sizeof(double);
	host = xmalloc(bytes);
	st = gpu_launch(p->g, p->unit_sums, "kbx_unit_sums", grid, block, 0, params, 0);
	if (!st)
		st = gpu_download(p->g, host, psum, bytes);
	gpu_free(p->g, psum);
	for (b = 0; !st && b < blocks; b++) {
		double s;
		unsigned long long cnt[2];

		memcpy(&s, host + b * sizeof(double), sizeof(s));
		memcpy(cnt, host + (size_t)blocks * sizeof(double) + b * sizeof(cnt), sizeof(cnt));
		*sum += s;
		*outside += cnt[0];
		*differ += cnt[1];
	}
	free(host);
	return st;
}

enum kbx_status gpuprop_uniform(struct gpuprop *p, gpu_ptr a, gpu_ptr other, long long n, struct gpuprop_uniform *out)
{
	unsigned long long o2, d2;
	double ss;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (!p || !a || n < 1)
		return kbx_error(KBX_EINVAL, "the GPU uniform test: no kernels, no buffer or no values");
	st = unit_pass(p, a, other, n, 1, 0, &out->mean, &out->outside, &out->differ);
	if (!st) {
		out->mean /= (double)n;
		st = unit_pass(p, a, 0, n, 2, out->mean, &ss, &o2, &d2);
	}
	if (st)
		return kbx_wrap(st, "the GPU uniform test");
	out->var = ss / (n > 1 ? (double)(n - 1) : 1.0);
	return KBX_OK;
}

enum kbx_status gpuprop_gather(struct gpuprop *p, gpu_ptr a, long long stride, long long count, float *out)
{
	gpu_ptr dev = 0;
	long long blocks = (count + GP_T - 1) / GP_T < GP_UNIT_BLOCKS ? (count + GP_T - 1) / GP_T : GP_UNIT_BLOCKS;
	unsigned grid[3] = { (unsigned)blocks, 1, 1 }, block[3] = { GP_T, 1, 1 };
	void *params[4] = { &a, &stride, &count, &dev };
	enum kbx_status st;

	if (!p || !a || stride < 1 || count < 1)
		return kbx_error(KBX_EINVAL, "the GPU sample: no kernels, no buffer, or a stride or count below 1");
	st = gpu_alloc(p->g, (size_t)count * sizeof(float), &dev);
	if (st)
		return kbx_wrap(st, "the GPU sample");
	st = gpu_launch(p->g, p->gather, "kbx_gather", grid, block, 0, params, 0);
	if (!st)
		st = gpu_download(p->g, out, dev, (size_t)count * sizeof(float));
	gpu_free(p->g, dev);
	return st ? kbx_wrap(st, "the GPU sample") : KBX_OK;
}

/* ---- independence of complex columns ---------------------------------------------------------- */

enum kbx_status gpuprop_min_pivot(struct gpuprop *p, gpu_ptr v, long long n, double *out)
{
	gpu_ptr work = 0, re, im, len, rem, state;
	unsigned block[3] = { GP_T, 1, 1 }, one[3] = { 1, 1, 1 };
	long long k, init_blocks;
	enum kbx_status st;

	*out = 1;
	if (!p || !v)
		return kbx_error(KBX_EINVAL, "the GPU independence check: no kernels or no buffer");
	if (n <= 0)
		return KBX_OK;
	if (n > 1LL << 15)
		return kbx_error(KBX_EINVAL, "the GPU independence check: order %lld is more than it takes", n);
	st = gpu_alloc(p->g, (size_t)(2 * n * n + 2 * n + 2) * sizeof(double), &work);
	if (st)
		return kbx_wrap(st, "the GPU independence check");
	re = work, im = re + (size_t)(n * n) * sizeof(double), len = im + (size_t)(n * n) * sizeof(double);
	rem = len + (size_t)n * sizeof(double), state = rem + (size_t)n * sizeof(double);
	init_blocks = (n * n + GP_T - 1) / GP_T < GP_UNIT_BLOCKS ? (n * n + GP_T - 1) / GP_T : GP_UNIT_BLOCKS;
	{
		unsigned g_init[3] = { (unsigned)init_blocks, 1, 1 }, g_cols[3] = { (unsigned)n, 1, 1 };
		void *p_init[5] = { &v, &n, &re, &im, &state };
		void *p_norms[5] = { &re, &im, &n, &len, &rem };

		st = gpu_launch(p->g, p->piv_init, "kbx_piv_init", g_init, block, 0, p_init, 0);
		if (!st)
			st = gpu_launch(p->g, p->piv_norms, "kbx_piv_norms", g_cols, block, 0, p_norms, 0);
	}
	for (k = 0; !st && k < n; k++) {
		void *p_sel[7] = { &re, &im, &n, &k, &len, &rem, &state };
		void *p_upd[6] = { &re, &im, &n, &k, &rem, &state };
		unsigned g_upd[3] = { (unsigned)(n - k - 1), 1, 1 };

		st = gpu_launch(p->g, p->piv_select, "kbx_piv_select", one, block, 0, p_sel, 0);
		if (!st && k + 1 < n)
			st = gpu_launch(p->g, p->piv_update, "kbx_piv_update", g_upd, block, 0, p_upd, 0);
	}
	if (!st)
		st = gpu_download(p->g, out, state, sizeof(*out));
	gpu_free(p->g, work);
	return st ? kbx_wrap(st, "the GPU independence check") : KBX_OK;
}
