/* Property verifiers: exact decompositions pass, so do the sign/order/phase freedoms they allow;
 * each broken property fails with a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dense.h"
#include "core/util.h"
#include "core/verify.h"

#define MAXB 8

struct fixture {
	struct task t;
	struct task_arg args[MAXB];
	struct binding vp[MAXB];
	struct problem p;
	struct problem_buf bufs[MAXB];
	void *in[MAXB], *cand[MAXB], *ref[MAXB];
};

static void add_buf(struct fixture *f, const char *name, enum arg_dir dir, enum dtype dt, int ndim, long long d0,
		    long long d1, long long d2)
{
	int i = f->t.nargs++;
	struct problem_buf *b = &f->bufs[i];
	long long dims[3] = { d0, d1, d2 };
	int k;

	f->args[i].name = (char *)name;
	f->args[i].dir = dir;
	f->args[i].dtype = dt;
	b->arg = &f->args[i];
	b->ndim = ndim;
	b->numel = 1;
	for (k = 0; k < ndim; k++) {
		b->shape[k] = dims[k];
		b->numel *= (size_t)dims[k];
	}
	b->bytes = b->numel * dtype_size(dt);
	f->p.nbufs = f->t.nargs;
	if (dir == ARG_IN) {
		f->in[i] = xcalloc(b->numel + 1, dtype_size(dt));
	} else {
		f->cand[i] = xcalloc(b->numel + 1, dtype_size(dt));
		f->ref[i] = xcalloc(b->numel + 1, dtype_size(dt));
	}
}

static void set_param(struct fixture *f, const char *k, const char *v)
{
	f->vp[f->t.nverifier_params].key = (char *)k;
	f->vp[f->t.nverifier_params].value = (char *)v;
	f->t.nverifier_params++;
}

static struct fixture *fixture_new(const char *property, const char *tol)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	f->t.args = f->args;
	f->t.verifier_params = f->vp;
	f->t.ini_path = "test.ini";
	f->t.verifier = "property";
	f->p.bufs = f->bufs;
	if (property)
		set_param(f, "property", property);
	if (tol)
		set_param(f, "tol", tol);
	return f;
}

static void fixture_free(struct fixture *f)
{
	int i;

	for (i = 0; i < MAXB; i++) {
		free(f->in[i]);
		free(f->cand[i]);
		free(f->ref[i]);
	}
	free(f);
}

static float *F(void *p)
{
	return p;
}

/* A 3x3 rotation about z then x: orthogonal, no zero entries that hide index mistakes. */
static void rotation(double q[3][3], double a, double b)
{
	double rz[3][3] = { { cos(a), -sin(a), 0 }, { sin(a), cos(a), 0 }, { 0, 0, 1 } };
	double rx[3][3] = { { 1, 0, 0 }, { 0, cos(b), -sin(b) }, { 0, sin(b), cos(b) } };
	int i, j, k;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			q[i][j] = 0;
			for (k = 0; k < 3; k++)
				q[i][j] += rz[i][k] * rx[k][j];
		}
}

/* ------------------------------------------------------------------- svd ---- */

/* A (3x3) = U diag(s) V^T with U, V rotations; outputs U, S, Vh (= V^T). */
static struct fixture *svd_fixture(void)
{
	struct fixture *f = fixture_new("svd", "1e-5");
	double u[3][3], v[3][3], s[3] = { 5, 2, 0.5 };
	int i, j, k;

	add_buf(f, "A", ARG_IN, DT_F32, 2, 3, 3, 0);
	add_buf(f, "U", ARG_OUT, DT_F32, 2, 3, 3, 0);
	add_buf(f, "S", ARG_OUT, DT_F32, 1, 3, 0, 0);
	add_buf(f, "Vh", ARG_OUT, DT_F32, 2, 3, 3, 0);
	set_param(f, "input", "A");
	set_param(f, "u", "U");
	set_param(f, "s", "S");
	set_param(f, "vh", "Vh");
	rotation(u, 0.3, 0.7);
	rotation(v, -1.1, 0.4);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			double a = 0;

			for (k = 0; k < 3; k++)
				a += u[i][k] * s[k] * v[j][k];
			F(f->in[0])[i * 3 + j] = (float)a;
			F(f->cand[1])[i * 3 + j] = F(f->ref[1])[i * 3 + j] = (float)u[i][j];
			F(f->cand[3])[i * 3 + j] = F(f->ref[3])[i * 3 + j] = (float)v[j][i];
		}
	for (k = 0; k < 3; k++)
		F(f->cand[2])[k] = F(f->ref[2])[k] = (float)s[k];
	return f;
}

static int run_verify(struct fixture *f, struct verify_result *vr)
{
	assert_int_equal(verify_property(&f->t, &f->p, f->in, f->cand, f->ref, vr), KBX_OK);
	return vr->pass;
}

static void test_svd(void **state)
{
	struct fixture *f = svd_fixture();
	struct verify_result vr;
	int i;

	(void)state;
	assert_true(run_verify(f, &vr));
	assert_true(vr.worst <= 1);
	/* Flip the sign of singular pair 1: still a valid SVD. */
	for (i = 0; i < 3; i++) {
		F(f->cand[1])[i * 3 + 1] *= -1;
		F(f->cand[3])[1 * 3 + i] *= -1;
	}
	assert_true(run_verify(f, &vr));
	/* Flip only U's column: the reconstruction breaks. */
	for (i = 0; i < 3; i++)
		F(f->cand[1])[i * 3 + 1] *= -1;
	assert_false(run_verify(f, &vr));
	assert_non_null(strstr(vr.message, "reconstruction"));
	fixture_free(f);

	f = svd_fixture();
	F(f->cand[2])[0] *= 1.01f;      /* a wrong singular value */
	assert_false(run_verify(f, &vr));
	assert_non_null(strstr(vr.message, "S_ref"));
	assert_true(vr.worst > 1);
	fixture_free(f);

	f = svd_fixture();
	F(f->cand[1])[0] += 1e-3f;      /* U no longer orthonormal */
	assert_false(run_verify(f, &vr));
	fixture_free(f);

	f = svd_fixture();
	F(f->cand[2])[2] = NAN;
	assert_false(run_verify(f, &vr));
	fixture_free(f);
}

/* -------------------------------------------------------------------- qr ---- */

static struct fixture *qr_fixture(void)
{
	struct fixture *f = fixture_new("qr", "1e-5");
	double q[3][3], r[3][3] = { { 3, -1, 2 }, { 0, 2, 0.5 }, { 0, 0, -1.5 } };
	int i, j, k;

	add_buf(f, "A", ARG_IN, DT_F32, 2, 3, 3, 0);
	add_buf(f, "Q", ARG_OUT, DT_F32, 2, 3, 3, 0);
	add_buf(f, "R", ARG_OUT, DT_F32, 2, 3, 3, 0);
	set_param(f, "input", "A");
	set_param(f, "q", "Q");
	set_param(f, "r", "R");
	rotation(q, 0.9, -0.3);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			double a = 0;

			for (k = 0; k < 3; k++)
				a += q[i][k] * r[k][j];
			F(f->in[0])[i * 3 + j] = (float)a;
			F(f->cand[1])[i * 3 + j] = F(f->ref[1])[i * 3 + j] = (float)q[i][j];
			F(f->cand[2])[i * 3 + j] = F(f->ref[2])[i * 3 + j] = (float)r[i][j];
		}
	return f;
}

static void test_qr(void **state)
{
	struct fixture *f = qr_fixture();
	struct verify_result vr;
	int i;

	(void)state;
	assert_true(run_verify(f, &vr));
	for (i = 0; i < 3; i++) {      /* Q D, D R with D = diag(1, -1, 1): also a QR */
		F(f->cand[1])[i * 3 + 1] *= -1;
		F(f->cand[2])[1 * 3 + i] *= -1;
	}
	assert_true(run_verify(f, &vr));
	F(f->cand[2])[2 * 3 + 0] = 0.25f;       /* below the diagonal */
	assert_false(run_verify(f, &vr));
	fixture_free(f);

	f = qr_fixture();
	for (i = 0; i < 9; i++)         /* Q scaled: reconstruction and orthonormality break */
		F(f->cand[1])[i] *= 1.001f;
	assert_false(run_verify(f, &vr));
	fixture_free(f);
}

/* A 300 x 200 reduced QR: Q the first 200 columns of a Householder reflection (dense, exactly
 * orthonormal columns), R upper triangular. Large enough that every check runs through the
 * blocked products of core/dense.c with partial blocks in every dimension. */
static struct fixture *qr_large_fixture(void)
{
	enum { M = 300, N = 200 };
	struct fixture *f = fixture_new("qr", "1e-5");
	double *v = xmalloc(M * sizeof(*v)), *q = xmalloc((size_t)M * N * sizeof(*q)), vv = 0;
	double *r = xcalloc((size_t)N * N, sizeof(*r));
	int i, j, k;

	add_buf(f, "A", ARG_IN, DT_F32, 2, M, N, 0);
	add_buf(f, "Q", ARG_OUT, DT_F32, 2, M, N, 0);
	add_buf(f, "R", ARG_OUT, DT_F32, 2, N, N, 0);
	set_param(f, "input", "A");
	set_param(f, "q", "Q");
	set_param(f, "r", "R");
	for (i = 0; i < M; i++) {
		v[i] = sin(0.37 * i + 1.0) + 0.1;
		vv += v[i] * v[i];
	}
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++)
			q[i * N + j] = (i == j) - 2 * v[i] * v[j] / vv;
	for (i = 0; i < N; i++)
		for (j = i; j < N; j++)
			r[i * N + j] = i == j ? 2.0 + 0.01 * i : cos(0.11 * i * j);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			double a = 0;

			for (k = 0; k < N; k++)
				a += q[i * N + k] * r[k * N + j];
			F(f->in[0])[i * N + j] = (float)a;
			F(f->cand[1])[i * N + j] = F(f->ref[1])[i * N + j] = (float)q[i * N + j];
		}
	for (i = 0; i < N * N; i++)
		F(f->cand[2])[i] = F(f->ref[2])[i] = (float)r[i];
	free(v);
	free(q);
	free(r);
	return f;
}

static void test_qr_large(void **state)
{
	struct fixture *f = qr_large_fixture();
	struct verify_result vr;

	(void)state;
	assert_true(run_verify(f, &vr));
	assert_true(vr.worst < 0.1);
	F(f->cand[1])[300 * 200 - 1] += 1e-3f;  /* the last element of Q: the blocks' tails */
	assert_false(run_verify(f, &vr));
	assert_non_null(strstr(vr.message, "reconstruction"));
	fixture_free(f);

	f = qr_large_fixture();
	F(f->cand[1])[0] = NAN;
	assert_false(run_verify(f, &vr));
	fixture_free(f);
}

/* The blocked, threaded product of m x k by k x n against the plain triple loop; the Gram matrix
 * of the first factor too, exactly symmetric. */
static void check_products(long long m, long long k, long long n)
{
	double *a = xmalloc((size_t)(m * k + 1) * sizeof(*a)), *b = xmalloc((size_t)(k * n + 1) * sizeof(*b));
	double *c = xmalloc((size_t)(m * n + 1) * sizeof(*c)), *g = xmalloc((size_t)(k * k + 1) * sizeof(*g));
	double *at;
	long long i, j, l;

	for (i = 0; i < m * k; i++)
		a[i] = sin(0.7 * (double)i) * 3;
	for (i = 0; i < k * n; i++)
		b[i] = cos(1.3 * (double)i) - 0.2;
	for (i = 0; i < m * n; i++)
		c[i] = NAN;     /* every element must be written */
	dense_matmul(c, a, b, m, k, n);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double want = 0;

			for (l = 0; l < k; l++)
				want += a[i * k + l] * b[l * n + j];
			if (!(fabs(c[i * n + j] - want) <= 1e-12 * (1 + fabs(want))))
				fail_msg("[%lld x %lld] [%lld x %lld]: c[%lld, %lld] = %.17g, not %.17g", m, k, k, n, i, j,
					 c[i * n + j], want);
		}
	at = dense_transpose(a, m, k);
	for (i = 0; i < m; i++)
		for (l = 0; l < k; l++)
			assert_true(at[l * m + i] == a[i * k + l]);
	dense_gram_cols(g, a, m, k);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			double want = 0;

			for (l = 0; l < m; l++)
				want += a[l * k + i] * a[l * k + j];
			assert_true(fabs(g[i * k + j] - want) <= 1e-12 * (1 + fabs(want)));
			assert_true(g[i * k + j] == g[j * k + i]);
		}
	free(a);
	free(b);
	free(c);
	free(g);
	free(at);
}

/* Partial blocks, panels and row groups in every dimension, an empty inner dimension, a single
 * element, a Gram matrix whose tiles below the diagonal are skipped (1100 columns); by the AVX2
 * and FMA code where this CPU has it, and by the portable code. */
static void test_dense_products(void **state)
{
	static const long long sizes[][3] = { { 37, 300, 1100 }, { 1, 1, 1 }, { 5, 0, 3 }, { 16, 128, 512 }, { 0, 4, 4 },
					      { 9, 1100, 3 }, { 130, 259, 1031 }, { 3, 7, 9 } };
	size_t t;
	int portable;

	(void)state;
	for (portable = 0; portable < 2; portable++) {
		dense_use_portable(portable);
		for (t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++)
			check_products(sizes[t][0], sizes[t][1], sizes[t][2]);
	}
	dense_use_portable(0);
}

/* The pivoted Gram-Schmidt of dense_min_pivot, one step after another on one thread: what the
 * verifier computed before the work was spread over the cores (norms recomputed at each step). */
static double min_pivot_serial(double *re, double *im, long long n)
{
	double *len = calloc((size_t)n + 1, sizeof(*len)), worst = INFINITY;
	long long i, j, k;

	for (j = 0; j < n; j++) {
		for (i = 0; i < n; i++)
			len[j] += re[j * n + i] * re[j * n + i] + im[j * n + i] * im[j * n + i];
		len[j] = sqrt(len[j]);
	}
	for (k = 0; k < n && worst > 0; k++) {
		long long p = k;
		double best = -1, r;

		for (j = k; j < n; j++) {
			double s = 0;

			for (i = 0; i < n; i++)
				s += re[j * n + i] * re[j * n + i] + im[j * n + i] * im[j * n + i];
			s = len[j] > 0 ? sqrt(s) / len[j] : 0;
			if (s > best) {
				best = s;
				p = j;
			}
		}
		for (i = 0; p != k && i < n; i++) {
			double t = re[k * n + i], u = im[k * n + i];

			re[k * n + i] = re[p * n + i], re[p * n + i] = t;
			im[k * n + i] = im[p * n + i], im[p * n + i] = u;
		}
		r = len[k], len[k] = len[p], len[p] = r;
		if (!(best > 0)) {
			worst = 0;
			break;
		}
		worst = fmin(worst, best);
		r = best * len[k];
		for (i = 0; i < n; i++)
			re[k * n + i] /= r, im[k * n + i] /= r;
		for (j = k + 1; j < n; j++) {
			double pr = 0, pi = 0;

			for (i = 0; i < n; i++) {
				pr += re[k * n + i] * re[j * n + i] + im[k * n + i] * im[j * n + i];
				pi += re[k * n + i] * im[j * n + i] - im[k * n + i] * re[j * n + i];
			}
			for (i = 0; i < n; i++) {
				re[j * n + i] -= pr * re[k * n + i] - pi * im[k * n + i];
				im[j * n + i] -= pr * im[k * n + i] + pi * re[k * n + i];
			}
		}
	}
	free(len);
	return n ? worst : 1;
}

/* dense_min_pivot on the cores gives the serial algorithm's number, bit for bit, at sizes that
 * take the threaded path (n >= 128) and below it; 1 for orthonormal columns, 0 for a repeated one. */
static void test_min_pivot(void **state)
{
	static const long long sizes[] = { 1, 2, 7, 127, 128, 200 };
	size_t s;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		long long n = sizes[s], i, len = n * n;
		double *re = malloc((size_t)len * sizeof(*re)), *im = malloc((size_t)len * sizeof(*im));
		double *re2 = malloc((size_t)len * sizeof(*re)), *im2 = malloc((size_t)len * sizeof(*im));
		double got, want;
		int variant;

		for (variant = 0; variant < 3; variant++) {
			unsigned long long x = 0x9e3779b97f4a7c15ULL + (unsigned long long)variant;

			for (i = 0; i < len; i++) {     /* uniform in [-1, 1), plus 3 on the diagonal in variant 1 */
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				re[i] = (double)(x >> 11) / 4503599627370496.0 - 1 + (variant == 1 && i % (n + 1) == 0 ? 3 : 0);
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				im[i] = variant == 2 ? 0 : (double)(x >> 11) / 4503599627370496.0 - 1;
			}
			if (variant == 2 && n > 1)     /* column n - 1 repeats column 0 */
				memcpy(re + (n - 1) * n, re, (size_t)n * sizeof(*re));
			memcpy(re2, re, (size_t)len * sizeof(*re));
			memcpy(im2, im, (size_t)len * sizeof(*im));
			got = dense_min_pivot(re, im, n);
			want = min_pivot_serial(re2, im2, n);
			if (memcmp(&got, &want, sizeof(got)))
				fail_msg("n = %lld, variant %d: %.17g on the cores, %.17g on one", n, variant, got, want);
			if (variant == 2 && n > 1)
				assert_true(got < 1e-12);
			else
				assert_true(got > 0 && got <= 1);
		}
		free(re);
		free(im);
		free(re2);
		free(im2);
	}
	{
		/* the identity's columns: every pivot 1 */
		double re[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, im[9] = { 0 };

		assert_true(dense_min_pivot(re, im, 3) == 1);
		assert_true(dense_min_pivot(re, im, 0) == 1);
	}
}

/* ------------------------------------------------------------------- eig ---- */

/* A = [[0, -2], [2, 0]]: eigenvalues +-2i, eigenvectors (1, -+i)/sqrt(2). */
static struct fixture *eig_fixture(void)
{
	struct fixture *f = fixture_new("eig", "1e-5");
	float h = (float)M_SQRT1_2;
	float vec[8] = { h, 0, h, 0, 0, -h, 0, h };     /* [[h, h], [-ih, ih]] row-major, (re, im) */
	float val[4] = { 0, 2, 0, -2 };
	float a[4] = { 0, -2, 2, 0 };

	add_buf(f, "A", ARG_IN, DT_F32, 2, 2, 2, 0);
	add_buf(f, "L", ARG_OUT, DT_C64, 1, 2, 0, 0);
	add_buf(f, "V", ARG_OUT, DT_C64, 2, 2, 2, 0);
	set_param(f, "input", "A");
	set_param(f, "values", "L");
	set_param(f, "vectors", "V");
	memcpy(f->in[0], a, sizeof(a));
	memcpy(f->cand[1], val, sizeof(val));
	memcpy(f->ref[1], val, sizeof(val));
	memcpy(f->cand[2], vec, sizeof(vec));
	memcpy(f->ref[2], vec, sizeof(vec));
	return f;
}

static void test_eig(void **state)
{
	struct fixture *f = eig_fixture();
	struct verify_result vr;
	float *v, *l, t;
	int i;

	(void)state;
	assert_true(run_verify(f, &vr));
	/* Swap the two eigenpairs: same decomposition, other order. */
	l = f->cand[1];
	v = f->cand[2];
	t = l[1], l[1] = l[3], l[3] = t;
	for (i = 0; i < 2; i++) {
		float re = v[i * 4 + 0], im = v[i * 4 + 1];

		v[i * 4 + 0] = v[i * 4 + 2];
		v[i * 4 + 1] = v[i * 4 + 3];
		v[i * 4 + 2] = re;
		v[i * 4 + 3] = im;
	}
	assert_true(run_verify(f, &vr));
	/* Multiply eigenvector 0 by the phase i: still an eigenvector of unit length. */
	for (i = 0; i < 2; i++) {
		float re = v[i * 4 + 0], im = v[i * 4 + 1];

		v[i * 4 + 0] = -im;
		v[i * 4 + 1] = re;
	}
	assert_true(run_verify(f, &vr));
	fixture_free(f);

	f = eig_fixture();
	((float *)f->cand[1])[1] = 2.1f;        /* a wrong eigenvalue */
	assert_false(run_verify(f, &vr));
	fixture_free(f);

	f = eig_fixture();
	for (i = 0; i < 8; i++)                 /* right directions, wrong length */
		((float *)f->cand[2])[i] *= 2;
	assert_false(run_verify(f, &vr));
	assert_non_null(strstr(vr.message, "unit length"));
	fixture_free(f);
}

/* A repeated eigenvalue leaves any basis of its eigenspace; not one vector twice. */
static void test_eig_dependent_vectors(void **state)
{
	struct fixture *f = fixture_new("eig", "1e-5");
	struct verify_result vr;
	float a[4] = { 1, 0, 0, 1 }, val[4] = { 1, 0, 1, 0 };
	float basis[8] = { 1, 0, 0, 0, 0, 0, 1, 0 };                    /* e1, e2 */
	float h = (float)M_SQRT1_2;
	float rotated[8] = { h, 0, -h, 0, h, 0, h, 0 };                 /* another orthonormal basis */
	float twice[8] = { 1, 0, 1, 0, 0, 0, 0, 0 };                    /* e1, e1 */

	(void)state;
	add_buf(f, "A", ARG_IN, DT_F32, 2, 2, 2, 0);
	add_buf(f, "L", ARG_OUT, DT_C64, 1, 2, 0, 0);
	add_buf(f, "V", ARG_OUT, DT_C64, 2, 2, 2, 0);
	set_param(f, "input", "A");
	set_param(f, "values", "L");
	set_param(f, "vectors", "V");
	memcpy(f->in[0], a, sizeof(a));
	memcpy(f->cand[1], val, sizeof(val));
	memcpy(f->ref[1], val, sizeof(val));
	memcpy(f->ref[2], basis, sizeof(basis));
	memcpy(f->cand[2], rotated, sizeof(rotated));
	assert_true(run_verify(f, &vr));
	memcpy(f->cand[2], twice, sizeof(twice));
	assert_false(run_verify(f, &vr));
	assert_non_null(strstr(vr.message, "linear dependence"));
	fixture_free(f);
}

static void test_config_errors(void **state)
{
	struct fixture *f = fixture_new("lu", "1e-5");
	struct verify_result vr;

	(void)state;
	assert_int_equal(verify_property(&f->t, &f->p, f->in, f->cand, f->ref, &vr), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "unknown property 'lu'"));
	fixture_free(f);
	f = fixture_new("svd", NULL);
	assert_int_equal(verify_property(&f->t, &f->p, f->in, f->cand, f->ref, &vr), KBX_EINVAL);
	fixture_free(f);
	f = fixture_new("svd", "1e-5 +");
	assert_int_not_equal(verify_property(&f->t, &f->p, f->in, f->cand, f->ref, &vr), KBX_OK);
	fixture_free(f);
	f = svd_fixture();
	f->vp[2].value = "nope";                /* input = nope */
	assert_int_equal(verify_property(&f->t, &f->p, f->in, f->cand, f->ref, &vr), KBX_EINVAL);
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svd),
		cmocka_unit_test(test_qr),
		cmocka_unit_test(test_qr_large),
		cmocka_unit_test(test_dense_products),
		cmocka_unit_test(test_min_pivot),
		cmocka_unit_test(test_eig),
		cmocka_unit_test(test_eig_dependent_vectors),
		cmocka_unit_test(test_config_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
