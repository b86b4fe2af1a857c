/*
 * Dense f64 matrix products: see dense.h.
 */
#include "dense.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A task is BLOCK_ROWS rows of c; each streams a BLOCK_K x BLOCK_N tile of b (512 KiB) from the
 * cache for all of its rows. Inside a tile, 4 x 4 blocks of c stay in registers across the
 * inner dimension (vec4: four doubles, GCC and Clang vector extensions; two SSE2 registers
 * each at plain -O2), so each element of b loaded serves four rows. */
#define BLOCK_ROWS 16
#define BLOCK_K 128
#define BLOCK_N 512

typedef double vec4 __attribute__((vector_size(4 * sizeof(double))));

struct matmul_job {
	double *c;
	const double *a, *b;
	long long m, k, n;
	int upper;      /* c is symmetric (a Gram matrix): only tiles that reach the diagonal or above */
};

static long long min_ll(long long x, long long y)
{
	return x < y ? x : y;
}

/* c[i0..i0+4, x..x+4] += a[i0..i0+4, k0..k1] * b[k0..k1, x..x+4] (memcpy: no alignment assumed;
 * four named accumulators so that they stay in registers) */
static void block4x4(const struct matmul_job *j, long long i0, long long x, long long k0, long long k1)
{
	const double *a0 = j->a + i0 * j->k, *a1 = a0 + j->k, *a2 = a1 + j->k, *a3 = a2 + j->k;
	double *c = j->c + i0 * j->n + x;
	vec4 c0, c1, c2, c3, b;
	long long l;

	memcpy(&c0, c, sizeof(vec4));
	memcpy(&c1, c + j->n, sizeof(vec4));
	memcpy(&c2, c + 2 * j->n, sizeof(vec4));
	memcpy(&c3, c + 3 * j->n, sizeof(vec4));
	for (l = k0; l < k1; l++) {
		memcpy(&b, j->b + l * j->n + x, sizeof(b));
		c0 += a0[l] * b;
		c1 += a1[l] * b;
		c2 += a2[l] * b;
		c3 += a3[l] * b;
	}
	memcpy(c, &c0, sizeof(vec4));
	memcpy(c + j->n, &c1, sizeof(vec4));
	memcpy(c + 2 * j->n, &c2, sizeof(vec4));
	memcpy(c + 3 * j->n, &c3, sizeof(vec4));
}

/* The edges a 4 x 4 block does not cover: c[i, x] += a[i, k0..k1] . b[k0..k1, x], one by one. */
static void block1(const struct matmul_job *j, long long i, long long x, long long k0, long long k1)
{
	double s = j->c[i * j->n + x];
	long long l;

	for (l = k0; l < k1; l++)
		s += j->a[i * j->k + l] * j->b[l * j->n + x];
	j->c[i * j->n + x] = s;
}

/* What the blocks of rows i0..i1 (4 at a time from i0) and columns n0..nb did not cover, one
 * element at a time: columns nb..n1 of those groups, and every column of the rows after them. */
static void block_edges(const struct matmul_job *j, long long i0, long long i1, long long n0, long long nb,
			long long n1, long long k0, long long k1)
{
	long long i, x, r;

	for (i = i0; i + 4 <= i1; i += 4)
		for (x = nb; x < n1; x++)
			for (r = 0; r < 4; r++)
				block1(j, i + r, x, k0, k1);
	for (; i < i1; i++)
		for (x = n0; x < n1; x++)
			block1(j, i, x, k0, k1);
}

/* Task blk's rows [*i0, *i1) of c, `rows` a task, zeroed. For a Gram matrix (upper) the blocks
 * are taken top and bottom in turn, so that each thread's share of the triangle is about the
 * same. */
static void start_rows(const struct matmul_job *j, size_t blk, long long rows, long long *i0, long long *i1)
{
	size_t nblk = (size_t)((j->m + rows - 1) / rows);
	size_t b = !j->upper ? blk : blk % 2 == 0 ? blk / 2 : nblk - 1 - blk / 2;

	*i0 = (long long)b * rows;
	*i1 = min_ll(*i0 + rows, j->m);
	memset(j->c + *i0 * j->n, 0, (size_t)((*i1 - *i0) * j->n) * sizeof(double));
}

static void matmul_rows(void *arg, size_t lo, size_t hi)
{
	const struct matmul_job *j = arg;
	size_t blk;

	for (blk = lo; blk < hi; blk++) {
		long long i0, i1, i, x, k0, n0;

		start_rows(j, blk, BLOCK_ROWS, &i0, &i1);
		for (k0 = 0; k0 < j->k; k0 += BLOCK_K) {
			long long k1 = min_ll(k0 + BLOCK_K, j->k);

			for (n0 = 0; n0 < j->n; n0 += BLOCK_N) {
				long long n1 = min_ll(n0 + BLOCK_N, j->n), n4 = n0 + (n1 - n0) / 4 * 4;

				if (j->upper && n1 <= i0)
					continue;   /* wholly below the diagonal: mirrored afterwards */

				for (i = i0; i + 4 <= i1; i += 4)
					for (x = n0; x < n4; x += 4)
						block4x4(j, i, x, k0, k1);
				block_edges(j, i0, i1, n0, n4, n1, k0, k1);
			}
		}
	}
}

/* ---- the same product with AVX2 and FMA (x86-64, chosen at run time) -------------------------
 *
 * On a CPU that has them, each task takes FMA_ROWS rows of c, copies each BLOCK_K x BLOCK_N tile
 * of b into panels of 8 columns (each panel's rows contiguous), and keeps 4 x 8 blocks of c in
 * eight 256-bit registers while it runs down a panel: two loads of b and four of a for eight fused
 * multiply-adds. About 6x the portable code on one core of the development machine (2026-12-03:
 * 3.5 against 23 GFLOP/s at n = 2048). The sums are fused (one rounding a step instead of two):
 * the last bits differ from the portable code's; the checks built on them have tolerances far
 * above that, and the Gram matrix is mirrored either way. */
#if defined(__x86_64__) && defined(__GNUC__)
#define DENSE_FMA 1
#define FMA_ROWS 64
#define PANEL 8

/* c[0..4, 0..8] += a[0..4, 0..kk] * q[kk x 8] (rows of c ldc apart, of a lda apart) */
__attribute__((target("avx2,fma"))) static void block4x8_fma(double *c, long long ldc, const double *a, long long lda,
								 const double *q, long long kk)
{
	const double *a0 = a, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
	vec4 c00, c01, c10, c11, c20, c21, c30, c31, b0, b1;
	long long l;

	memcpy(&c00, c, sizeof(vec4));
	memcpy(&c01, c + 4, sizeof(vec4));
	memcpy(&c10, c + ldc, sizeof(vec4));
	memcpy(&c11, c + ldc + 4, sizeof(vec4));
	memcpy(&c20, c + 2 * ldc, sizeof(vec4));
	memcpy(&c21, c + 2 * ldc + 4, sizeof(vec4));
	memcpy(&c30, c + 3 * ldc, sizeof(vec4));
	memcpy(&c31, c + 3 * ldc + 4, sizeof(vec4));
	for (l = 0; l < kk; l++) {
		double x0 = a0[l], x1 = a1[l], x2 = a2[l], x3 = a3[l];

		memcpy(&b0, q + l * PANEL, sizeof(vec4));
		memcpy(&b1, q + l * PANEL + 4, sizeof(vec4));
		c00 += x0 * b0; c01 += x0 * b1;
		c10 += x1 * b0; c11 += x1 * b1;
		c20 += x2 * b0; c21 += x2 * b1;
		c30 += x3 * b0; c31 += x3 * b1;
	}
	memcpy(c, &c00, sizeof(vec4));
	memcpy(c + 4, &c01, sizeof(vec4));
	memcpy(c + ldc, &c10, sizeof(vec4));
	memcpy(c + ldc + 4, &c11, sizeof(vec4));
	memcpy(c + 2 * ldc, &c20, sizeof(vec4));
	memcpy(c + 2 * ldc + 4, &c21, sizeof(vec4));
	memcpy(c + 3 * ldc, &c30, sizeof(vec4));
	memcpy(c + 3 * ldc + 4, &c31, sizeof(vec4));
}

__attribute__((target("avx2,fma"))) static void matmul_rows_fma(void *arg, size_t lo, size_t hi)
{
	const struct matmul_job *j = arg;
	size_t blk;
	double *pk = xmalloc((size_t)BLOCK_K * BLOCK_N * sizeof(double));

	for (blk = lo; blk < hi; blk++) {
		long long i0, i1, i, k0, n0, p, l;

		start_rows(j, blk, FMA_ROWS, &i0, &i1);
		for (k0 = 0; k0 < j->k; k0 += BLOCK_K) {
			long long k1 = min_ll(k0 + BLOCK_K, j->k), kk = k1 - k0;

			for (n0 = 0; n0 < j->n; n0 += BLOCK_N) {
				long long n1 = min_ll(n0 + BLOCK_N, j->n), npan = (n1 - n0) / PANEL, n8 = n0 + npan * PANEL;

				if (j->upper && n1 <= i0)
					continue;   /* wholly below the diagonal: mirrored afterwards */
				for (p = 0; p < npan; p++)
					for (l = 0; l < kk; l++)
						memcpy(pk + (p * kk + l) * PANEL, j->b + (k0 + l) * j->n + n0 + p * PANEL,
						       PANEL * sizeof(double));
				for (i = i0; i + 4 <= i1; i += 4)
					for (p = 0; p < npan; p++)
						block4x8_fma(j->c + i * j->n + n0 + p * PANEL, j->n, j->a + i * j->k + k0, j->k,
							     pk + p * kk * PANEL, kk);
				block_edges(j, i0, i1, n0, n8, n1, k0, k1);
			}
		}
	}
	free(pk);
}

static pthread_once_t fma_once = PTHREAD_ONCE_INIT;
static int fma_known;

static void probe_fma(void)
{
	__builtin_cpu_init();
	fma_known = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

static int have_fma(void)
{
	pthread_once(&fma_once, probe_fma);
	return fma_known;
}
#endif

static int portable_only;

void dense_use_portable(int on)
{
	portable_only = on;
}

static void matmul(double *c, const double *a, const double *b, long long m, long long k, long long n, int upper)
{
	struct matmul_job j = { c, a, b, m, k, n, upper };

	if (m <= 0 || n <= 0)
		return;
	if (k <= 0) {
		memset(c, 0, (size_t)(m * n) * sizeof(double));
		return;
	}
#ifdef DENSE_FMA
	if (!portable_only && have_fma()) {
		parallel_for((size_t)((m + FMA_ROWS - 1) / FMA_ROWS), 1, matmul_rows_fma, &j);
		return;
	}
#endif
	parallel_for((size_t)((m + BLOCK_ROWS - 1) / BLOCK_ROWS), 1, matmul_rows, &j);
}

void dense_matmul(double *c, const double *a, const double *b, long long m, long long k, long long n)
{
	matmul(c, a, b, m, k, n, 0);
}

double *dense_transpose(const double *a, long long m, long long n)
{
	double *t = xmalloc((size_t)(m * n + 1) * sizeof(double));
	long long i, x, i0, x0;

	for (i0 = 0; i0 < m; i0 += 32)
		for (x0 = 0; x0 < n; x0 += 32)
			for (i = i0; i < min_ll(i0 + 32, m); i++)
				for (x = x0; x < min_ll(x0 + 32, n); x++)
					t[x * m + i] = a[i * n + x];
	return t;
}

/* Entry (i, j) and entry (j, i) are the same products added in the same order, so the upper
 * triangle is computed and mirrored: the full product's numbers (bar a contraction into fused
 * multiply-adds that a -march build might make in one and not the other), in 40 % less time at
 * n = 2048 (bench/verify_property.c; LinearAlgebra/qr's orthonormality check). */
void dense_gram_cols(double *c, const double *a, long long m, long long n)
{
	double *t = dense_transpose(a, m, n);
	long long i, x;

	matmul(c, t, a, n, m, n, 1);
	for (i = 1; i < n; i++)
		for (x = 0; x < i; x++)
			c[i * n + x] = c[x * n + i];
	free(t);
}

/* ---- how independent a complex matrix's columns are (dense_min_pivot) ----------------------
 *
 * Modified Gram-Schmidt with column pivoting. Step k takes the remaining column with the largest
 * norm relative to its length as q_k (thread 0, between two barriers), then every column after it
 * is orthogonalized against q_k and its remaining norm taken in the same pass (all threads, taking
 * blocks of PIVOT_BLOCK columns from a shared counter, so a thread that could not be started only
 * leaves more blocks to the others). The norms are computed, never downdated: the result is the
 * serial algorithm's, bit for bit, whatever the number of threads. */

#define PIVOT_BLOCK 8

struct pivot_job {
	double *re, *im;        /* column j at [j * n, (j + 1) * n) */
	double *len, *rem;      /* each column's original length, and its remaining squared norm */
	long long n, k;         /* the order, and the step: q_k is column k once selected */
	long long next;         /* the next block of columns to orthogonalize (atomic) */
	double worst;
	int stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int arrived, participants;
	unsigned gen;
};

static void pivot_barrier(struct pivot_job *p)
{
	unsigned gen;

	pthread_mutex_lock(&p->mu);
	gen = p->gen;
	if (++p->arrived >= p->participants) {
		p->arrived = 0;
		p->gen++;
		pthread_cond_broadcast(&p->cv);
	} else {
		while (gen == p->gen)
			pthread_cond_wait(&p->cv, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

/* Swap columns x and y of a matrix stored column by column, n elements each. */
static void swap_cols(double *a, long long n, long long x, long long y)
{
	long long i;

	for (i = 0; i < n; i++) {
		double t = a[x * n + i];

		a[x * n + i] = a[y * n + i];
		a[y * n + i] = t;
	}
}

/* Thread 0's part of step k: the pivot, moved to column k and normalized. */
static void pivot_select(struct pivot_job *p)
{
	long long n = p->n, k = p->k, piv = k, i, j;
	double best = -1, r;

	for (j = k; j < n; j++) {
		double s = p->len[j] > 0 ? sqrt(p->rem[j]) / p->len[j] : 0;

		if (s > best) {
			best = s;
			piv = j;
		}
	}
	if (piv != k) {
		swap_cols(p->re, n, k, piv);
		swap_cols(p->im, n, k, piv);
		swap_cols(p->len, 1, k, piv);
		swap_cols(p->rem, 1, k, piv);
	}
	p->next = 0;
	if (!(best > 0)) {
		p->worst = 0;
		p->stop = 1;
		return;
	}
	if (best < p->worst)
		p->worst = best;
	r = best * p->len[k];
	for (i = 0; i < n; i++) {
		p->re[k * n + i] /= r;
		p->im[k * n + i] /= r;
	}
	if (k + 1 >= n)
		p->stop = 1;
}

/* Every thread's part of step k: the columns after k, block by block, made orthogonal to q_k. */
static void pivot_update(struct pivot_job *p)
{
	long long n = p->n, k = p->k, blk, i, j;
	const double *qr = p->re + k * n, *qi = p->im + k * n;

	while ((blk = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) * PIVOT_BLOCK + k + 1 < n) {
		long long j0 = k + 1 + blk * PIVOT_BLOCK, j1 = min_ll(j0 + PIVOT_BLOCK, n);

		for (j = j0; j < j1; j++) {
			double *xr = p->re + j * n, *xi = p->im + j * n, pr = 0, pi = 0, s = 0;

			for (i = 0; i < n; i++) {       /* q_k^H x */
				pr += qr[i] * xr[i] + qi[i] * xi[i];
				pi += qr[i] * xi[i] - qi[i] * xr[i];
			}
			for (i = 0; i < n; i++) {
				xr[i] -= pr * qr[i] - pi * qi[i];
				xi[i] -= pr * qi[i] + pi * qr[i];
				s += xr[i] * xr[i] + xi[i] * xi[i];
			}
			p->rem[j] = s;
		}
	}
}

static void *pivot_main(void *arg)
{
	struct pivot_job *p = arg;

	for (;;) {
		pivot_barrier(p);       /* thread 0 has selected q_k */
		if (p->stop)
			return NULL;
		pivot_update(p);
		pivot_barrier(p);       /* every column after k is done */
	}
}

double dense_min_pivot(double *re, double *im, long long n)
{
	struct pivot_job p;
	pthread_t tids[64];
	int nt = n >= 128 ? parallel_width() : 1, started = 0, t;
	long long j, i;

	if (n <= 0)
		return 1;
	if (nt > (int)(sizeof(tids) / sizeof(tids[0])))
		nt = (int)(sizeof(tids) / sizeof(tids[0]));
	memset(&p, 0, sizeof(p));
	p.re = re;
	p.im = im;
	p.n = n;
	p.worst = INFINITY;
	p.len = xmalloc((size_t)n * sizeof(*p.len));
	p.rem = xmalloc((size_t)n * sizeof(*p.rem));
	for (j = 0; j < n; j++) {
		double s = 0;

		for (i = 0; i < n; i++)
			s += re[j * n + i] * re[j * n + i] + im[j * n + i] * im[j * n + i];
		p.rem[j] = s;
		p.len[j] = sqrt(s);
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	pivot_select(&p);
	p.participants = nt;
	for (t = 1; t < nt && !p.stop; t++)
		started += pthread_create(&tids[started], NULL, pivot_main, &p) == 0;
	/* before thread 0's first wait no barrier can trip: count only the threads that run */
	pthread_mutex_lock(&p.mu);
	p.participants = started + 1;
	pthread_mutex_unlock(&p.mu);
	while (!p.stop) {
		pivot_barrier(&p);
		pivot_update(&p);
		pivot_barrier(&p);
		p.k++;
		pivot_select(&p);
	}
	if (started)
		pivot_barrier(&p);      /* let the others see stop */
	for (t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	free(p.len);
	free(p.rem);
	return p.worst;
}
