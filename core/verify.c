/*
 * Property verifiers (see verify.h). All arithmetic in double on the host; matrices row-major
 * with any number of leading batch dimensions.
 */
#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "dtype.h"
#include "util.h"

struct mat {
	const struct problem_buf *b;
	const void *data;
	long long rows, cols;   /* the last two dims (a vector: 1 x len) */
	long long batch;
};

struct ctx {
	const struct task *t;
	const struct problem *p;
	double tol;
	struct verify_result *out;
	const struct verify_hooks *hooks;
};

static const char *param(const struct task *t, const char *key)
{
	return binding_get(t->verifier_params, t->nverifier_params, key);
}

static int find_buf(const struct problem *p, const char *name)
{
	int i;

	for (i = 0; name && i < p->nbufs; i++)
		if (!strcmp(p->bufs[i].arg->name, name))
			return i;
	return -1;
}

int verify_role_buf(const struct task *t, const struct problem *p, const char *role)
{
	return find_buf(p, param(t, role));
}

/* The buffer playing `role`; its data from `data` (inputs, candidate or reference outputs). */
static enum kbx_status get_mat(const struct ctx *c, const char *role, void *const *data, int optional, struct mat *m)
{
	const char *name = param(c->t, role);
	int i = find_buf(c->p, name);
	const struct problem_buf *b;

	memset(m, 0, sizeof(*m));
	if (!name && optional)
		return KBX_OK;
	if (i < 0)
		return kbx_error(KBX_EINVAL, "'%s': [verifier] %s = %s names no buffer argument", c->t->ini_path, role,
				 name ? name : "(missing)");
	b = &c->p->bufs[i];
	m->b = b;
	m->data = data ? data[i] : NULL;
	if (!m->data)
		return kbx_error(KBX_EINVAL, "'%s': no data for '%s'", c->t->ini_path, b->arg->name);
	if (b->ndim >= 2) {
		m->rows = b->shape[b->ndim - 2];
		m->cols = b->shape[b->ndim - 1];
	} else {
		m->rows = 1;
		m->cols = b->ndim ? b->shape[0] : 1;
	}
	m->batch = m->rows > 0 && m->cols > 0 ? (long long)b->numel / (m->rows * m->cols) : 0;
	return KBX_OK;
}

/* Element (batch, i, j), component comp (c64: 0 real, 1 imaginary). */
static double at(const struct mat *m, long long batch, long long i, long long j, int comp)
{
	size_t idx = (size_t)((batch * m->rows + i) * m->cols + j);

	if (comp && dtype_components(m->b->arg->dtype) < 2)
		return 0;
	return dtype_get(m->b->arg->dtype, m->data, idx, comp);
}

/* A vector stored as the last dim of [*, len]. */
static double vat(const struct mat *m, long long batch, long long i, int comp)
{
	if (comp && dtype_components(m->b->arg->dtype) < 2)
		return 0;
	return dtype_get(m->b->arg->dtype, m->data, (size_t)(batch * m->cols + i), comp);
}

static double frob(const struct mat *a, long long batch)
{
	double s = 0;
	long long i, j;

	for (i = 0; i < a->rows; i++)
		for (j = 0; j < a->cols; j++) {
			double v = at(a, batch, i, j, 0);

			s += v * v;
		}
	return sqrt(s);
}

/* Record a measured value against the tolerance; the first failure writes the message. */
static int check(const struct ctx *c, double value, double tol, long long batch, const char *what)
{
	double rel = tol > 0 ? value / tol : (value > 0 ? INFINITY : 0);

	if (!(rel <= c->out->worst))
		c->out->worst = isnan(rel) ? INFINITY : rel;
	if (value <= tol)
		return 1;
	if (c->out->pass) {
		c->out->pass = 0;
		snprintf(c->out->message, sizeof(c->out->message), "%s: %s = %.3g > tol %.3g (matrix %lld)",
			 param(c->t, "property"), what, value, tol, batch);
	}
	return 0;
}

/* Matrix `batch` of m, component comp, as contiguous row-major doubles (xmalloc'd): the O(n^3)
 * checks run on these through core/dense.c, not element by element through dtype_get. */
static double *dense_of(const struct mat *m, long long batch, int comp)
{
	double *d = xmalloc((size_t)(m->rows * m->cols + 1) * sizeof(*d));
	long long i, j;

	for (i = 0; i < m->rows; i++)
		for (j = 0; j < m->cols; j++)
			d[i * m->cols + j] = at(m, batch, i, j, comp);
	return d;
}

/* max |G - I| over a Gram matrix G [n x n]; NaN counts as infinitely far. */
static double off_identity(const double *g, long long n)
{
	double worst = 0;
	long long a, b;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			double s = g[a * n + b] - (a == b);

			if (fabs(s) > worst || isnan(s))
				worst = isnan(s) ? INFINITY : fabs(s);
		}
	return worst;
}

/* max |Q^T Q - I| over the columns of Q [rows x cols], dense (dense_of). */
static double orth_cols(const double *q, long long rows, long long cols)
{
	double *g = xmalloc((size_t)(cols * cols + 1) * sizeof(*g)), worst;

	dense_gram_cols(g, q, rows, cols);
	worst = off_identity(g, cols);
	free(g);
	return worst;
}

/* max |V V^T - I| over the rows of V [rows x cols], dense (dense_of). */
static double orth_rows(const double *v, long long rows, long long cols)
{
	double *t = dense_transpose(v, rows, cols), *g = xmalloc((size_t)(rows * rows + 1) * sizeof(*g)), worst;

	dense_matmul(g, v, t, rows, cols, rows);
	worst = off_identity(g, rows);
	free(t);
	free(g);
	return worst;
}

/* sum over the elements of (A - P)^2, A the matrix `batch` of a, P [a.rows x a.cols] dense. */
static double residual2(const struct mat *a, long long batch, const double *p)
{
	double e2 = 0;
	long long i, j;

	for (i = 0; i < a->rows; i++)
		for (j = 0; j < a->cols; j++) {
			double v = at(a, batch, i, j, 0) - p[i * a->cols + j];

			e2 += v * v;
		}
	return e2;
}

/* ------------------------------------------------------------------- svd ---- */

static enum kbx_status verify_svd(struct ctx *c, void *const *in, void *const *cand, void *const *ref)
{
	struct mat a, u, s, vh, sr;
	enum kbx_status st;
	long long b, i, l, k;

	if ((st = get_mat(c, "input", in, 0, &a)) || (st = get_mat(c, "u", cand, 0, &u)) ||
	    (st = get_mat(c, "s", cand, 0, &s)) || (st = get_mat(c, "vh", cand, 0, &vh)) ||
	    (st = get_mat(c, "s", ref, 0, &sr)))
		return st;
	k = a.rows < a.cols ? a.rows : a.cols;
	if (u.rows != a.rows || u.cols < k || vh.cols != a.cols || vh.rows < k || s.cols != k)
		return kbx_error(KBX_EINVAL, "'%s': svd shapes do not fit A [%lld, %lld]", c->t->ini_path, a.rows, a.cols);
	for (b = 0; b < a.batch; b++) {
		double na = frob(&a, b), smax = fabs(vat(&sr, b, 0, 0)), worst = 0, e2;
		double *ud = dense_of(&u, b, 0), *vhd = dense_of(&vh, b, 0);
		double *us = xmalloc((size_t)(a.rows * k + 1) * sizeof(*us));
		double *usv = xmalloc((size_t)(a.rows * a.cols + 1) * sizeof(*usv));

		if (smax == 0)
			smax = 1;
		for (i = 0; i < k; i++) {
			double si = vat(&s, b, i, 0), ri = vat(&sr, b, i, 0);

			if (!(fabs(si - ri) <= worst))
				worst = isnan(si) ? INFINITY : fabs(si - ri);
			check(c, -si, c->tol * smax, b, "a negative singular value");
			if (i + 1 < k)
				check(c, vat(&s, b, i + 1, 0) - si, c->tol * smax, b, "singular values not descending by");
		}
		check(c, worst / smax, c->tol, b, "|S - S_ref| / s_max");
		for (i = 0; i < a.rows; i++)
			for (l = 0; l < k; l++)
				us[i * k + l] = ud[i * u.cols + l] * vat(&s, b, l, 0);
		dense_matmul(usv, us, vhd, a.rows, k, a.cols);  /* the first k rows of Vh */
		e2 = residual2(&a, b, usv);
		check(c, na > 0 ? sqrt(e2) / na : sqrt(e2), c->tol, b, "reconstruction |A - U S Vh| / |A|");
		check(c, orth_cols(ud, u.rows, u.cols), c->tol, b, "orthonormality of U, max |U^T U - I|");
		check(c, orth_rows(vhd, vh.rows, vh.cols), c->tol, b, "orthonormality of Vh, max |Vh Vh^T - I|");
		free(ud);
		free(vhd);
		free(us);
		free(usv);
	}
	return KBX_OK;
}

/* -------------------------------------------------------------------- qr ---- */

static enum kbx_status verify_qr(struct ctx *c, void *const *in, void *const *cand, void *const *ref)
{
	struct mat a, q, r, rr;
	enum kbx_status st;
	long long b, i, j;

	if ((st = get_mat(c, "input", in, 0, &a)) || (st = get_mat(c, "q", cand, 1, &q)) ||
	    (st = get_mat(c, "r", cand, 0, &r)) || (st = get_mat(c, "r", ref, 0, &rr)))
		return st;
	if (r.cols != a.cols || (q.b && (q.rows != a.rows || q.cols != r.rows)))
		return kbx_error(KBX_EINVAL, "'%s': qr shapes do not fit A [%lld, %lld]", c->t->ini_path, a.rows, a.cols);
	for (b = 0; b < a.batch; b++) {
		double na = frob(&a, b), lower = 0, diff = 0;

		if (na == 0)
			na = 1;
		if (q.b) {
			double *qd = dense_of(&q, b, 0), *rd = dense_of(&r, b, 0), e2;
			double *qr = xmalloc((size_t)(a.rows * a.cols + 1) * sizeof(*qr));

			dense_matmul(qr, qd, rd, a.rows, q.cols, a.cols);
			e2 = residual2(&a, b, qr);
			check(c, sqrt(e2) / na, c->tol, b, "reconstruction |A - QR| / |A|");
			check(c, orth_cols(qd, q.rows, q.cols), c->tol, b, "orthonormality of Q, max |Q^T Q - I|");
			free(qd);
			free(rd);
			free(qr);
		}
		for (i = 0; i < r.rows; i++) {
			double d = at(&r, b, i, i < r.cols ? i : 0, 0) * at(&rr, b, i, i < r.cols ? i : 0, 0);
			double sgn = d < 0 ? -1 : 1;

			for (j = 0; j < r.cols; j++) {
				double v = at(&r, b, i, j, 0);

				if (j < i && !(fabs(v) <= lower))
					lower = isnan(v) ? INFINITY : fabs(v);
				if (!(fabs(v - sgn * at(&rr, b, i, j, 0)) <= diff))
					diff = isnan(v) ? INFINITY : fabs(v - sgn * at(&rr, b, i, j, 0));
			}
		}
		check(c, lower / na, c->tol, b, "R not upper triangular, max |R below diagonal| / |A|");
		check(c, diff / na, c->tol, b, "R differs from the reference beyond row signs, max |R - D R_ref| / |A|");
	}
	return KBX_OK;
}

/* ------------------------------------------------------------------- eig ---- */

/* How far the columns of V are from linear dependence (dense_min_pivot: the smallest pivot of a
 * QR with column pivoting, each column measured against its own length; 0 when dependent). Order
 * does not matter: the pivoting takes the most independent remaining column at each step. */
static double independence(const struct mat *v, long long b, long long n)
{
	double *re = xmalloc((size_t)(n * n + 1) * sizeof(*re)), *im = xmalloc((size_t)(n * n + 1) * sizeof(*im)), worst;
	long long i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++) {
			re[j * n + i] = at(v, b, i, j, 0);
			im[j * n + i] = at(v, b, i, j, 1);
		}
	worst = dense_min_pivot(re, im, n);
	free(re);
	free(im);
	return worst;
}

/* A candidate's eigenvectors may be closer to dependence than the reference's by this factor:
 * both come from backward-stable methods; a basis that collapses (one vector returned twice for
 * a repeated eigenvalue) does not. */
#define EIG_INDEPENDENCE_SLACK 100.0

static enum kbx_status verify_eig(struct ctx *c, void *const *in, void *const *cand, void *const *ref)
{
	struct mat a, w, v, wr, vr;
	enum kbx_status st;
	long long b, i, l;
	long long n;
	unsigned char *used;

	if ((st = get_mat(c, "input", in, 0, &a)) || (st = get_mat(c, "values", cand, 0, &w)) ||
	    (st = get_mat(c, "vectors", cand, 0, &v)) || (st = get_mat(c, "values", ref, 0, &wr)) ||
	    (st = get_mat(c, "vectors", ref, 0, &vr)))
		return st;
	n = a.rows;
	if (n < 0 || a.cols != n || w.cols != n || v.rows != n || v.cols != n)
		return kbx_error(KBX_EINVAL, "'%s': eig shapes do not fit A [%lld, %lld]", c->t->ini_path, a.rows, a.cols);
	used = xmalloc((size_t)n + 1);
	for (b = 0; b < a.batch; b++) {
		double na = frob(&a, b), res = 0, norm_err = 0, match = 0;
		double *ad = dense_of(&a, b, 0), *vre = dense_of(&v, b, 0), *vim = dense_of(&v, b, 1);
		double *avr = xmalloc((size_t)(n * n + 1) * sizeof(*avr)), *avi = xmalloc((size_t)(n * n + 1) * sizeof(*avi));

		if (na == 0)
			na = 1;
		dense_matmul(avr, ad, vre, n, n, n);
		dense_matmul(avi, ad, vim, n, n, n);
		for (l = 0; l < n; l++) {
			double lr = vat(&w, b, l, 0), li = vat(&w, b, l, 1), r2 = 0, v2 = 0, e;

			for (i = 0; i < n; i++) {
				double xr = vre[i * n + l], xi = vim[i * n + l];
				double sr = avr[i * n + l] - (lr * xr - li * xi), si = avi[i * n + l] - (lr * xi + li * xr);

				r2 += sr * sr + si * si;
				v2 += xr * xr + xi * xi;
			}
			e = v2 > 0 ? sqrt(r2) / (na * sqrt(v2)) : INFINITY;
			if (!(e <= res))
				res = isnan(e) ? INFINITY : e;
			if (!(fabs(sqrt(v2) - 1) <= norm_err))
				norm_err = isnan(v2) ? INFINITY : fabs(sqrt(v2) - 1);
		}
		free(ad);
		free(vre);
		free(vim);
		free(avr);
		free(avi);
		/* Eigenvalues as a set: each reference value to its nearest unused candidate value. */
		memset(used, 0, (size_t)n);
		for (l = 0; l < n; l++) {
			double best = INFINITY;
			long long bi = -1;

			for (i = 0; i < n; i++) {
				double dr, di, d;

				if (used[i])
					continue;
				dr = vat(&w, b, i, 0) - vat(&wr, b, l, 0);
				di = vat(&w, b, i, 1) - vat(&wr, b, l, 1);
				d = hypot(dr, di);
				if (d < best || bi < 0) {
					best = d;
					bi = i;
				}
			}
			if (bi >= 0)
				used[bi] = 1;
			if (!(best / na <= match))
				match = isnan(best) ? INFINITY : best / na;
		}
		check(c, res, c->tol, b, "residual max |A v - l v| / (|A| |v|)");
		check(c, match, c->tol, b, "eigenvalues differ from the reference's, max distance / |A|");
		check(c, norm_err, c->tol, b, "eigenvectors not unit length, max ||v| - 1|");
		if (c->out->pass) {
			const struct verify_hooks *h = c->hooks;
			double mine, theirs;

			if (!h || !h->independence || h->independence(h->ctx, 0, b, n, &mine))
				mine = independence(&v, b, n);
			if (!h || !h->independence || h->independence(h->ctx, 1, b, n, &theirs))
				theirs = independence(&vr, b, n);

			check(c, theirs > 0 ? theirs / (mine > 0 ? mine : 1e-300) : 0, EIG_INDEPENDENCE_SLACK, b,
			      "eigenvectors nearer linear dependence than the reference's, ratio of smallest pivoted QR "
			      "pivots");
		}
	}
	free(used);
	return KBX_OK;
}

enum kbx_status verify_property(const struct task *t, const struct problem *p, void *const *host_in,
				void *const *cand, void *const *ref, struct verify_result *out)
{
	return verify_property_with(t, p, host_in, cand, ref, NULL, out);
}

enum kbx_status verify_property_with(const struct task *t, const struct problem *p, void *const *host_in,
				     void *const *cand, void *const *ref, const struct verify_hooks *hooks,
				     struct verify_result *out)
{
	const char *kind = binding_get(t->verifier_params, t->nverifier_params, "property");
	const char *tol = binding_get(t->verifier_params, t->nverifier_params, "tol");
	struct ctx c = { t, p, 0, out, hooks };
	enum kbx_status st;
	int col;

	memset(out, 0, sizeof(*out));
	out->pass = 1;
	if (!kind || !tol)
		return kbx_error(KBX_EINVAL, "'%s': verifier = property needs [verifier] property and tol", t->ini_path);
	st = expr_eval_float(tol, &p->env, &c.tol, &col);
	if (st)
		return kbx_wrap(st, "'%s': [verifier] tol", t->ini_path);
	if (!strcmp(kind, "svd"))
		return verify_svd(&c, host_in, cand, ref);
	if (!strcmp(kind, "qr"))
		return verify_qr(&c, host_in, cand, ref);
	if (!strcmp(kind, "eig"))
		return verify_eig(&c, host_in, cand, ref);
	return kbx_error(KBX_EINVAL, "'%s': unknown property '%s' (expected eig, svd or qr)", t->ini_path, kind);
}
