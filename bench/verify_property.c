/*
 * How long the property verifiers take at a perf row's size, on this machine's cores.
 *
 * usage: bench/verify_property [N ...]     (default 1024 2048 4096)
 *
 * For each N: a reduced QR of an N x N matrix (Q the leading columns of a Householder
 * reflection, R upper triangular, A = Q R rounded to f32) checked by verify_property exactly as
 * the engine checks LinearAlgebra/qr's perf rows (reconstruction, orthonormality, R against the
 * reference), then the same matrices as an SVD (U = Q, S, Vh = I's rows), then an eigendecomposition
 * (below). Prints seconds per check.
 * Target: LinearAlgebra/qr's largest perf row (N = 4096) inside the result phase's watchdog
 * (3 x the launch limit + 20 s per GiB of buffers: 31 s at the default 10 s), with room to spare:
 * under 10 s on the device's 16 cores. On the H200 the qr reference and a correct example ran
 * past 300 s there before core/dense.c (bench/perf_check.py, 2026-12-02).
 * Measured on the 2-core development machine (2026-12-02, -O2):
 *   element by element (before):  qr 1024: 9.08 s   svd 1024: 19.2 s   (qr 4096 ~ 64 x that)
 *   core/dense.c:                  qr 1024: 0.55 s   qr 2048: 3.6 s    qr 4096: 30.1 s
 *                                  svd 1024: 0.72 s  svd 2048: 5.0 s   svd 4096: 47.3 s
 * (svd's perf rows stop at 256, eig's at 1024.) The products spread over the cores
 * (parallel_for), so 16 cores should take qr 4096 to about 4 s: not yet measured there.
 * eig (A = Q D Q with Q's columns as its eigenvectors, in complex64): the residual, the eigenvalue
 * matching, and the independence of the candidate's and the reference's eigenvectors (a pivoted
 * Gram-Schmidt of each), which took most of the time on one core. Same machine (2026-12-02):
 *   one core (before dense_min_pivot):  eig 512: 0.41 s  eig 1024: 3.45 s  eig 2048: 39.5 s
 *   dense_min_pivot on both cores:      eig 512: 0.30 s  eig 1024: 1.96 s  eig 2048: 17.3 s
 * On the H200 LinearAlgebra/eig spent 28.5 s verifying in one evaluation (2026-12-02, before).
 * dense_gram_cols computes the upper triangle and mirrors it (the same numbers: max diff 0 against
 * the full product): at n = 2048 3.5 s against 5.8 s for the full product, n = 1024 0.63 s against
 * 0.82 s, on this machine while another build ran (2026-12-03); on the H200 LinearAlgebra/qr spent
 * 31.4 s of host work verifying, most of it at n = 4096 (bench/eval_real.sh PICK=reference).
 * On the H200's host (16 cores, 2026-12-03, portable code): qr 1024 0.13 s, qr 2048 0.82 s, svd
 * 2048 1.24 s, eig 2048 4.83 s; and kbx still spent 25.6 s verifying qr's 9 perf rows (two checks
 * a row: before timing and on fresh inputs after). With the AVX2/FMA products (core/dense.c) on
 * the 2-core development machine the same day: qr 1024 1.16 -> 0.22 s, qr 2048 ~10 -> 1.39 s,
 * svd 2048 -> 1.99 s (dense_matmul alone 4 -> 23-30 GFLOP/s); not yet measured on the device.
 * Build: make bench/verify_property
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dense.h"
#include "core/expr.h"
#include "core/util.h"
#include "core/verify.h"

struct problem_set {
	struct task t;
	struct task_arg args[4];
	struct binding vp[6];
	struct problem p;
	struct problem_buf bufs[4];
	void *in[4], *cand[4], *ref[4];
};

static void add_typed(struct problem_set *s, const char *name, enum arg_dir dir, enum dtype dt, int ndim, long long d0,
		      long long d1)
{
	int i = s->t.nargs++;
	struct problem_buf *b = &s->bufs[i];
	size_t elem = dt == DT_C64 ? 2 * sizeof(float) : sizeof(float);

	s->args[i].name = (char *)name;
	s->args[i].dir = dir;
	s->args[i].dtype = dt;
	b->arg = &s->args[i];
	b->ndim = ndim;
	b->shape[0] = d0;
	b->shape[1] = d1;
	b->numel = (size_t)(ndim == 2 ? d0 * d1 : d0);
	b->bytes = b->numel * elem;
	s->p.nbufs = s->t.nargs;
	if (dir == ARG_IN) {
		s->in[i] = xcalloc(b->numel + 1, elem);
	} else {
		s->cand[i] = xcalloc(b->numel + 1, elem);
		s->ref[i] = s->cand[i];
	}
}

static void add(struct problem_set *s, const char *name, enum arg_dir dir, int ndim, long long d0, long long d1)
{
	add_typed(s, name, dir, DT_F32, ndim, d0, d1);
}

static void param(struct problem_set *s, const char *k, const char *v)
{
	s->vp[s->t.nverifier_params].key = (char *)k;
	s->vp[s->t.nverifier_params++].value = (char *)v;
}

static double time_check(struct problem_set *s, const char *what, long long n)
{
	struct verify_result vr;
	double t0 = now_seconds(), dt;

	if (verify_property(&s->t, &s->p, s->in, s->cand, s->ref, &vr)) {
		fprintf(stderr, "%s: %s\n", what, kbx_last_error());
		exit(1);
	}
	dt = now_seconds() - t0;
	printf("%-4s n = %5lld  %7.2f s  %s%s\n", what, n, dt, vr.pass ? "pass" : "FAIL: ", vr.pass ? "" : vr.message);
	return dt;
}

int main(int argc, char **argv)
{
	long long def[] = { 1024, 2048, 4096 }, n;
	int k, count = argc > 1 ? argc - 1 : 3;

	for (k = 0; k < count; k++) {
		struct problem_set qr = { 0 }, svd = { 0 }, eig = { 0 };
		double *v, *qd, *rd, *ad, vv = 0;
		float *a, *q, *r, *s, *vh;
		long long i, j;

		n = argc > 1 ? atoll(argv[k + 1]) : def[k];
		if (n < 1 || n > 16384) {
			fprintf(stderr, "bench/verify_property: N must be 1 .. 16384, not '%s'\n", argv[k + 1]);
			return 2;
		}
		qr.t.args = qr.args;
		qr.t.verifier_params = qr.vp;
		qr.t.ini_path = "bench.ini";
		qr.p.bufs = qr.bufs;
		add(&qr, "a", ARG_IN, 2, n, n);
		add(&qr, "q", ARG_OUT, 2, n, n);
		add(&qr, "r", ARG_OUT, 2, n, n);
		param(&qr, "property", "qr");
		param(&qr, "tol", "1e-6 * 4096");
		param(&qr, "input", "a");
		param(&qr, "q", "q");
		param(&qr, "r", "r");
		a = qr.in[0];
		q = qr.cand[1];
		r = qr.cand[2];
		v = xmalloc((size_t)n * sizeof(*v));
		for (i = 0; i < n; i++) {
			v[i] = sin(0.37 * (double)i + 1.0) + 0.1;
			vv += v[i] * v[i];
		}
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				q[i * n + j] = (float)((i == j) - 2 * v[i] * v[j] / vv);
				r[i * n + j] = j < i ? 0.0f : (float)(i == j ? 2.0 : cos(0.11 * (double)(i * j)) / sqrt((double)n));
			}
		/* A = Q R in f64 from the f32 factors (the bench's own set-up, not timed) */
		qd = xmalloc((size_t)(n * n) * sizeof(*qd));
		rd = xmalloc((size_t)(n * n) * sizeof(*rd));
		ad = xmalloc((size_t)(n * n) * sizeof(*ad));
		for (i = 0; i < n * n; i++) {
			qd[i] = q[i];
			rd[i] = r[i];
		}
		dense_matmul(ad, qd, rd, n, n, n);
		for (i = 0; i < n * n; i++)
			a[i] = (float)ad[i];
		free(qd);
		free(rd);
		free(ad);
		time_check(&qr, "qr", n);

		svd.t.args = svd.args;
		svd.t.verifier_params = svd.vp;
		svd.t.ini_path = "bench.ini";
		svd.p.bufs = svd.bufs;
		add(&svd, "a", ARG_IN, 2, n, n);
		add(&svd, "u", ARG_OUT, 2, n, n);
		add(&svd, "s", ARG_OUT, 1, n, 0);
		add(&svd, "vh", ARG_OUT, 2, n, n);
		param(&svd, "property", "svd");
		param(&svd, "tol", "5e-7 * 4096");
		param(&svd, "input", "a");
		param(&svd, "u", "u");
		param(&svd, "s", "s");
		param(&svd, "vh", "vh");
		s = svd.cand[2];
		vh = svd.cand[3];
		memcpy(svd.cand[1], q, (size_t)(n * n) * sizeof(float));
		for (i = 0; i < n; i++)
			s[i] = (float)(n - i);
		for (i = 0; i < n; i++) {
			vh[i * n + i] = 1.0f;
			for (j = 0; j < n; j++)
				((float *)svd.in[0])[i * n + j] = q[i * n + j] * s[j];
		}
		time_check(&svd, "svd", n);

		/* eig: A = Q D Q (Q the symmetric Householder reflection above, D distinct values), so
		 * Q's columns are its eigenvectors, as complex64 with zero imaginary parts */
		eig.t.args = eig.args;
		eig.t.verifier_params = eig.vp;
		eig.t.ini_path = "bench.ini";
		eig.p.bufs = eig.bufs;
		add(&eig, "a", ARG_IN, 2, n, n);
		add_typed(&eig, "w", ARG_OUT, DT_C64, 1, n, 0);
		add_typed(&eig, "v", ARG_OUT, DT_C64, 2, n, n);
		param(&eig, "property", "eig");
		param(&eig, "tol", "1.6e-7 * max(n, 64)");
		param(&eig, "input", "a");
		param(&eig, "values", "w");
		param(&eig, "vectors", "v");
		expr_env_set_int(&eig.p.env, "n", n);
		for (i = 0; i < n; i++) {
			((float *)eig.cand[1])[2 * i] = (float)(1.0 + (double)i / (double)n);
			for (j = 0; j < n; j++) {
				double aij = 0;
				long long l;

				((float *)eig.cand[2])[2 * (i * n + j)] = q[i * n + j];
				for (l = 0; l < n; l++)
					aij += (double)q[i * n + l] * (1.0 + (double)l / (double)n) * q[l * n + j];
				((float *)eig.in[0])[i * n + j] = (float)aij;
			}
		}
		time_check(&eig, "eig", n);
		for (i = 0; i < 4; i++) {
			free(qr.in[i]);
			free(qr.cand[i]);
			free(svd.in[i]);
			free(svd.cand[i]);
			free(eig.in[i]);
			free(eig.cand[i]);
		}
		expr_env_free(&eig.p.env);
		free(v);
	}
	return 0;
}
