/*
 * Dense f64 matrix products for the property verifiers (core/verify.c).
 *
 * A perf row of LinearAlgebra/qr is a 4096 x 4096 factorization: checking Q R against A and
 * Q^T Q against I is 1.4e11 multiply-adds. Done element by element through dtype_get with Q read
 * down its columns, that took minutes and ran past the result phase's watchdog, so a correct
 * kernel was reported as a timeout. Here the operands are contiguous row-major doubles and the
 * product is blocked for the caches and spread over the cores.
 */
#ifndef KBX_DENSE_H
#define KBX_DENSE_H

/* c[m x n] = a[m x k] * b[k x n], all row-major and contiguous; c must not alias a or b. */
void dense_matmul(double *c, const double *a, const double *b, long long m, long long k, long long n);

/* c[n x n] = a^T a for a[m x n] row-major (the Gram matrix of a's columns). */
void dense_gram_cols(double *c, const double *a, long long m, long long n);

/* Products (dense_matmul, dense_gram_cols) by the portable code even where the CPU has AVX2 and
 * FMA (on = 1), as every CPU gets them (for tests that hold both paths against the plain loop). */
void dense_use_portable(int on);

/* The transpose of a[m x n] as a new [n x m] array (xmalloc'd). */
double *dense_transpose(const double *a, long long m, long long n);

/* How far the n columns of a complex n x n matrix are from linear dependence: the smallest
 * pivot of a QR with column pivoting, each column measured against its own length (1 for
 * orthogonal columns, 0 for dependent ones). Column j is re[j*n .. j*n+n) + i im[...]; both are
 * overwritten. Spread over the cores for n >= 128, with the same result as on one. */
double dense_min_pivot(double *re, double *im, long long n);

#endif
