/*
 * Dense f64 matrix products: see dense.h.
 */
#include "dense.h"

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

static void matmul_rows(void *arg, size_t lo, size_t hi)
{
	const struct matmul_job *j = arg;
	size_t blk;

	for (blk = lo; blk < hi; blk++) {
		long long i0 = (long long)blk * BLOCK_ROWS, i1 = min_ll(i0 + BLOCK_ROWS, j->m), i, x, k0, n0, r;

		memset(j->c + i0 * j->n, 0, (size_t)((i1 - i0) * j->n) * sizeof(double));
		for (k0 = 0; k0 < j->k; k0 += BLOCK_K) {
			long long k1 = min_ll(k0 + BLOCK_K, j->k);

			for (n0 = 0; n0 < j->n; n0 += BLOCK_N) {
				long long n1 = min_ll(n0 + BLOCK_N, j->n), n4 = n0 + (n1 - n0) / 4 * 4;

				for (i = i0; i + 4 <= i1; i += 4) {
					for (x = n0; x < n4; x += 4)
						block4x4(j, i, x, k0, k1);
					for (x = n4; x < n1; x++)
						for (r = 0; r < 4; r++)
							block1(j, i + r, x, k0, k1);
				}
				for (; i < i1; i++)
					for (x = n0; x < n1; x++)
						block1(j, i, x, k0, k1);
			}
		}
	}
}

void dense_matmul(double *c, const double *a, const double *b, long long m, long long k, long long n)
{
	struct matmul_job j = { c, a, b, m, k, n };

	if (m <= 0 || n <= 0)
		return;
	if (k <= 0) {
		memset(c, 0, (size_t)(m * n) * sizeof(double));
		return;
	}
	parallel_for((size_t)((m + BLOCK_ROWS - 1) / BLOCK_ROWS), 1, matmul_rows, &j);
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

void dense_gram_cols(double *c, const double *a, long long m, long long n)
{
	double *t = dense_transpose(a, m, n);

	dense_matmul(c, t, a, n, m, n);
	free(t);
}
