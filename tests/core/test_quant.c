/* Tests for core/quant.c: the [quant] spec, the step per element, the histogram, the profiles,
 * saturation and the diagnosis, on synthetic errors (no GPU). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "core/quant.h"

#define R 12
#define C 40

static uint64_t rng_state;

static double urand(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* An output [R, C] quantized per row and per column: step[i, j] = rs[i] * cs[j], the reference
 * an integer number of steps in [-120, 120]. */
struct fixture {
	struct quant_spec spec;
	double rs[R], cs[C];
	double step[R * C], ref[R * C], cand[R * C];
	size_t shape[2];
};

/* A 2-D output y with a row and a column profile; quantized: "1" or NULL. */
static void spec_2d(struct quant_spec *spec, const char *step, const char *rows, const char *cols, const char *range,
		    const char *quantized)
{
	memset(spec, 0, sizeof(*spec));
	assert_int_equal(quant_spec_set(spec, "output", "y", "test"), KBX_OK);
	assert_int_equal(quant_spec_set(spec, "step", step, "test"), KBX_OK);
	assert_int_equal(quant_spec_set(spec, "rows", rows, "test"), KBX_OK);
	assert_int_equal(quant_spec_set(spec, "columns", cols, "test"), KBX_OK);
	assert_int_equal(quant_spec_set(spec, "range", range, "test"), KBX_OK);
	if (quantized)
		assert_int_equal(quant_spec_set(spec, "quantized", quantized, "test"), KBX_OK);
	assert_int_equal(quant_spec_check(spec, "test"), KBX_OK);
}

static void spec_matmul(struct quant_spec *spec)
{
	spec_2d(spec, "x_scale(0) * w_scale(1)", "0 : row", "1 : column", "-127, 127", NULL);
}

static void fixture_init(struct fixture *f, uint64_t seed)
{
	struct quant_scale sc[2];

	rng_state = seed;
	spec_matmul(&f->spec);
	for (int i = 0; i < R; i++)
		f->rs[i] = 0.01 + 0.05 * urand();
	for (int j = 0; j < C; j++)
		f->cs[j] = 0.02 + 0.03 * urand();
	sc[0] = (struct quant_scale){ "x_scale", f->rs, R };
	sc[1] = (struct quant_scale){ "w_scale", f->cs, C };
	f->shape[0] = R;
	f->shape[1] = C;
	assert_int_equal(quant_step_fill(&f->spec, f->shape, 2, sc, 2, f->step), KBX_OK);
	for (int e = 0; e < R * C; e++) {
		f->ref[e] = floor(urand() * 241 - 120) * f->step[e];
		f->cand[e] = f->ref[e];
	}
}

static void analyse(struct fixture *f, struct quant_result *r)
{
	quant_analyse(&f->spec, f->cand, f->ref, f->step, f->shape, 2, r);
	assert_true(r->valid);
}

static void test_step_fill(void **state)
{
	struct fixture f;

	(void)state;
	fixture_init(&f, 1);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			assert_true(f.step[i * C + j] == f.rs[i] * f.cs[j]);
}

/* A scale buffer larger than its axes index (a per-key scale for a per-query output) is averaged
 * over its trailing elements; a constant factor multiplies; a missing buffer is named. */
static void test_step_fill_reduced(void **state)
{
	struct quant_spec spec;
	double v[6] = { 1, 3, 2, 4, 10, 20 }, step[2 * 3];
	struct quant_scale sc = { "v_scale", v, 6 };
	size_t shape[2] = { 2, 3 };

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(quant_spec_set(&spec, "output", "out", "test"), KBX_OK);
	assert_int_equal(quant_spec_set(&spec, "step", "v_scale(0) * 0.5", "test"), KBX_OK);
	assert_int_equal(quant_step_fill(&spec, shape, 2, &sc, 1, step), KBX_OK);
	/* v_scale [2, 3] indexed by axis 0: rows (1 + 3 + 2) / 3 = 2 and (4 + 10 + 20) / 3 */
	assert_true(fabs(step[0] - 1.0) < 1e-12 && fabs(step[2] - 1.0) < 1e-12);
	assert_true(fabs(step[3] - 34.0 / 6) < 1e-12);
	sc.name = "other";
	assert_int_equal(quant_step_fill(&spec, shape, 2, &sc, 1, step), KBX_ENOTFOUND);
	assert_non_null(strstr(kbx_last_error(), "'v_scale'"));
	sc.name = "v_scale";
	sc.n = 5;
	assert_int_equal(quant_step_fill(&spec, shape, 2, &sc, 1, step), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "holds 5 values"));
}

static void test_spec_errors(void **state)
{
	struct quant_spec spec;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(quant_spec_set(&spec, "step", "x_scale(0", "t.ini line 3"), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "t.ini line 3"));
	assert_int_equal(quant_spec_set(&spec, "step", "x_scale(0) + w(1)", "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "step", "-2", "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "rows", "0", "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "rows", "0 :", "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "range", "127, -127", "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "quantized", "yes", "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "colour", "red", "t"), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "unknown key 'colour'"));
	assert_int_equal(quant_spec_check(&spec, "t"), KBX_EPARSE);
	assert_int_equal(quant_spec_set(&spec, "output", "y", "t"), KBX_OK);
	assert_int_equal(quant_spec_set(&spec, "step", "s()", "t"), KBX_OK);
	assert_int_equal(quant_spec_set(&spec, "quantized", "1", "t"), KBX_OK);
	assert_int_equal(quant_spec_check(&spec, "t"), KBX_EPARSE); /* quantized without a range */
	assert_int_equal(quant_spec_set(&spec, "range", "-8, 7", "t"), KBX_OK);
	assert_int_equal(quant_spec_check(&spec, "t"), KBX_OK);
	assert_true(spec.qmin == -8 && spec.qmax == 7);
}

static void test_exact_and_float_rounding(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 2);
	analyse(&f, &r);
	assert_int_equal(r.hist[QB_EXACT], R * C);
	assert_non_null(strstr(r.diagnosis, "every value exact"));
	for (int e = 0; e < R * C; e++)
		f.cand[e] = f.ref[e] + 1e-3 * f.step[e];
	analyse(&f, &r);
	assert_int_equal(r.hist[QB_HALF], R * C);
	assert_non_null(strstr(r.diagnosis, "within half a step"));
}

/* Each row off by its own number of steps, the same along the row: a row scale mistake. */
static void test_row_scaled(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 3);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] + (2 + (i * 7) % R) * f.step[i * C + j];
	analyse(&f, &r);
	assert_int_equal(r.hist[QB_MORE], R * C);
	assert_int_equal(r.rows.n, R);
	assert_int_equal(r.cols.n, C);
	/* (i * 7) % 12 is 11 at i = 5 */
	assert_int_equal(r.rows.worst[0], 5);
	assert_true(fabs(r.rows.worst_mean[0] - 13) < 1e-9);
	assert_true(r.rows.within < 1e-6);
	assert_non_null(strstr(r.diagnosis, "error constant along each row, different across rows"));
	assert_non_null(strstr(r.diagnosis, "the row scales differ"));
	assert_non_null(strstr(r.diagnosis, "worst row 5"));
}

/* Rows differ, but the error varies along each row as noise does. */
static void test_row_scaled_noisy(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 4);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] + (1 + i) * (1.5 + urand()) * f.step[i * C + j];
	analyse(&f, &r);
	assert_int_equal(r.rows.worst[0], R - 1);
	assert_non_null(strstr(r.diagnosis, "error differs from row to row"));
	assert_non_null(strstr(r.diagnosis, "evenly across columns: the row scales differ"));
}

static void test_column_scaled(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 5);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] - (3 + j % 9) * f.step[i * C + j];
	analyse(&f, &r);
	assert_int_equal(r.cols.worst[0], 8);
	assert_int_equal(r.cols.nworst, QUANT_WORST);
	assert_int_equal(r.cols.worst[1], 17); /* equal means keep index order */
	assert_non_null(strstr(r.diagnosis, "error constant along each column, different across columns"));
	assert_non_null(strstr(r.diagnosis, "the column scales differ"));
}

/* Both scales coarser (one per tensor): the error varies with the row and with the column. */
static void test_row_and_column_scaled(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 6);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] + (0.06 / f.rs[i]) * (0.05 / f.cs[j]) * f.step[i * C + j];
	analyse(&f, &r);
	assert_non_null(strstr(r.diagnosis, "the row and column scales differ, as with one scale per tensor"));
}

/* A tenth of the elements one step off (ties rounded the other way): the rounding mode. */
static void test_one_step_noise(void **state)
{
	struct fixture f;
	struct quant_result r;
	unsigned long long moved = 0;

	(void)state;
	fixture_init(&f, 7);
	for (int e = 0; e < R * C; e++)
		if (urand() < 0.1) {
			f.cand[e] += (urand() < 0.5 ? -1 : 1) * f.step[e];
			moved++;
		}
	analyse(&f, &r);
	assert_true(moved > 0);
	assert_int_equal(r.hist[QB_ONE], moved);
	assert_int_equal(r.hist[QB_EXACT] + r.hist[QB_HALF], R * C - moved);
	assert_int_equal(r.hist[QB_MORE], 0);
	assert_true(fabs(r.max_steps - 1) < 1e-9);
	assert_non_null(strstr(r.diagnosis, "all errors within one step"));
	assert_non_null(strstr(r.diagnosis, "the rounding mode differs"));
}

/* Random errors of several steps with no structure. */
static void test_uniform_noise(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 8);
	for (int e = 0; e < R * C; e++)
		f.cand[e] += (2 + 4 * urand()) * f.step[e];
	analyse(&f, &r);
	assert_non_null(strstr(r.diagnosis, "spread evenly over rows and columns"));
}

/* A quantized output (its value / step on the integer grid) with no clamp: values past 127. */
static void test_clamp_missing(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 9);
	assert_int_equal(quant_spec_set(&f.spec, "quantized", "1", "t"), KBX_OK);
	for (int i = 0; i < R; i++) {
		/* the reference saturates one element per row at +127, the candidate overshoots to 140 */
		f.ref[i * C] = 127 * f.step[i * C];
		f.cand[i * C] = 140 * f.step[i * C];
		/* an unclamped value in range elsewhere stays as it is */
	}
	analyse(&f, &r);
	assert_true(r.has_saturation);
	assert_int_equal(r.cand_beyond, R);
	assert_int_equal(r.cand_missed, r.ref_at_end);
	assert_true(r.ref_at_end >= R);
	assert_non_null(strstr(r.diagnosis, "saturation missing"));
	/* the same candidate clamped: no saturation finding */
	for (int i = 0; i < R; i++)
		f.cand[i * C] = 127 * f.step[i * C];
	analyse(&f, &r);
	assert_int_equal(r.cand_beyond, 0);
	assert_int_equal(r.cand_missed, 0);
	assert_null(strstr(r.diagnosis, "saturation"));
}

/* The row scale indexed by column and the column scale by row: exact only on the diagonal. */
static void test_transposed_scale(void **state)
{
	enum { N = 16 };
	struct quant_spec spec;
	double rs[N], cs[N], step[N * N], ref[N * N], cand[N * N];
	struct quant_scale sc[2] = { { "x_scale", rs, N }, { "w_scale", cs, N } };
	size_t shape[2] = { N, N };
	struct quant_result r;

	(void)state;
	rng_state = 10;
	spec_matmul(&spec);
	for (int i = 0; i < N; i++) {
		rs[i] = 0.01 * (1 + 3 * urand());
		cs[i] = 0.01 * (1 + 3 * urand());
	}
	assert_int_equal(quant_step_fill(&spec, shape, 2, sc, 2, step), KBX_OK);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double acc = floor(40 + 80 * urand());

			ref[i * N + j] = acc * rs[i] * cs[j];
			cand[i * N + j] = acc * cs[i] * rs[j];
		}
	quant_analyse(&spec, cand, ref, step, shape, 2, &r);
	assert_non_null(strstr(r.diagnosis, "exact on the diagonal"));
	assert_non_null(strstr(r.diagnosis, "transposed scale"));
}

/* Non-finite pairs and a zero step are left out and counted. */
static void test_skipped(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 11);
	f.cand[0] = NAN;
	f.step[1] = 0;
	f.ref[2] = INFINITY;
	analyse(&f, &r);
	assert_int_equal(r.skipped, 3);
	assert_int_equal(r.n, R * C - 3);
	for (int e = 0; e < R * C; e++)
		f.step[e] = 0;
	analyse(&f, &r);
	assert_int_equal(r.n, 0);
	assert_non_null(strstr(r.diagnosis, "no element has a quantization step"));
}

/* A profile longer than QUANT_PROFILE_CELLS is drawn in cells holding their entries' maximum. */
static void test_profile_cells(void **state)
{
	enum { N = 100 };
	struct quant_spec spec;
	double ref[N], cand[N], step[N];
	size_t shape[1] = { N };
	struct quant_result r;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(quant_spec_set(&spec, "output", "y", "t"), KBX_OK);
	assert_int_equal(quant_spec_set(&spec, "step", "0.5", "t"), KBX_OK);
	assert_int_equal(quant_spec_set(&spec, "rows", "0 : channel", "t"), KBX_OK);
	for (int i = 0; i < N; i++) {
		ref[i] = 0;
		cand[i] = i == 77 ? 5 : 0; /* 10 steps at channel 77 */
		step[i] = 0.5;
	}
	quant_analyse(&spec, cand, ref, step, shape, 1, &r);
	assert_int_equal(r.rows.n, N);
	assert_int_equal(r.rows.ncells, QUANT_PROFILE_CELLS);
	assert_int_equal(r.cols.n, 0);
	assert_int_equal(r.rows.nworst, 1);
	assert_int_equal(r.rows.worst[0], 77);
	for (int c = 0; c < r.rows.ncells; c++) {
		int lo = c * N / QUANT_PROFILE_CELLS, hi = (c + 1) * N / QUANT_PROFILE_CELLS;

		assert_true(r.rows.cell_max[c] == (lo <= 77 && 77 < hi ? 10.0f : 0.0f));
	}
	assert_non_null(strstr(r.diagnosis, "channel"));
}

/* The figures travel in the worker's case events: to JSON and back gives the same result, and a
 * damaged object is refused naming its field. */
/* A whole w8a8 GEMM, y = (x @ w) quantized per row of x and per column of w (the reference),
 * against candidates that quantize otherwise, with the exact product: randn [M, K] @ [K, N]. */
#define GM 32
#define GK 256
#define GN 128

static double nrand(void)
{
	double u = urand(), v = urand();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

static double quantize(double v, double s, int trunc)
{
	double q = s > 0 ? v / s : 0;

	q = trunc ? (double)(long long)q : rint(q);
	return q > 127 ? 127 : q < -127 ? -127 : q;
}

enum gemm_mistake { GEMM_SAME, GEMM_PER_TENSOR, GEMM_TRUNCATE };

/* Fills x_scale, w_scale (the reference's), step, the reference's y, the candidate's y and the
 * exact product for one mistake. */
static void gemm(uint64_t seed, enum gemm_mistake how, double *step, double *ref, double *cand, double *exact)
{
	static double x[GM * GK], w[GK * GN], xq[GM * GK], wq[GK * GN], cxq[GM * GK], cwq[GK * GN];
	double xs[GM], ws[GN], tx = 0, tw = 0;

	rng_state = seed;
	for (int e = 0; e < GM * GK; e++)
		x[e] = nrand();
	for (int e = 0; e < GK * GN; e++)
		w[e] = nrand();
	for (int i = 0; i < GM; i++) {
		xs[i] = 0;
		for (int k = 0; k < GK; k++)
			xs[i] = fmax(xs[i], fabs(x[i * GK + k]));
		tx = fmax(tx, xs[i]);
		xs[i] /= 127;
	}
	for (int j = 0; j < GN; j++) {
		ws[j] = 0;
		for (int k = 0; k < GK; k++)
			ws[j] = fmax(ws[j], fabs(w[k * GN + j]));
		tw = fmax(tw, ws[j]);
		ws[j] /= 127;
	}
	tx /= 127;
	tw /= 127;
	for (int i = 0; i < GM; i++)
		for (int k = 0; k < GK; k++) {
			xq[i * GK + k] = quantize(x[i * GK + k], xs[i], 0);
			cxq[i * GK + k] = quantize(x[i * GK + k], how == GEMM_PER_TENSOR ? tx : xs[i], how == GEMM_TRUNCATE);
		}
	for (int k = 0; k < GK; k++)
		for (int j = 0; j < GN; j++) {
			wq[k * GN + j] = quantize(w[k * GN + j], ws[j], 0);
			cwq[k * GN + j] = quantize(w[k * GN + j], how == GEMM_PER_TENSOR ? tw : ws[j], how == GEMM_TRUNCATE);
		}
	for (int i = 0; i < GM; i++)
		for (int j = 0; j < GN; j++) {
			double a = 0, b = 0, e = 0;

			for (int k = 0; k < GK; k++) {
				a += xq[i * GK + k] * wq[k * GN + j];
				b += cxq[i * GK + k] * cwq[k * GN + j];
				e += x[i * GK + k] * w[k * GN + j];
			}
			step[i * GN + j] = xs[i] * ws[j];
			ref[i * GN + j] = a * xs[i] * ws[j];
			cand[i * GN + j] = how == GEMM_PER_TENSOR ? b * tx * tw : b * xs[i] * ws[j];
			exact[i * GN + j] = e;
		}
}

/* One scale per tensor hides in the profiles under K terms of rounding noise (the spread of the
 * row means is under the threshold, as the H200 showed on matmul_w8a8); against the exact product
 * it shows: the error no longer follows each row's and column's scale. Truncation, which does
 * follow them, is not taken for it; without the exact product nothing changes. */
static void test_gemm_per_tensor_against_exact(void **state)
{
	static double step[GM * GN], ref[GM * GN], cand[GM * GN], exact[GM * GN];
	struct quant_spec spec;
	struct quant_result r;
	size_t shape[2] = { GM, GN };

	(void)state;
	spec_matmul(&spec);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		gemm(seed, GEMM_PER_TENSOR, step, ref, cand, exact);
		quant_analyse(&spec, cand, ref, step, shape, 2, &r);
		assert_null(strstr(r.diagnosis, "do not follow"));
		quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
		if (getenv("KBX_TEST_VERBOSE"))
			fprintf(stderr, "per tensor: %s\n", r.diagnosis);
		if (!strstr(r.diagnosis, "do not follow"))
			fail_msg("seed %llu per tensor: %s", (unsigned long long)seed, r.diagnosis);

		gemm(seed, GEMM_TRUNCATE, step, ref, cand, exact);
		quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
		if (getenv("KBX_TEST_VERBOSE"))
			fprintf(stderr, "truncation: %s\n", r.diagnosis);
		if (strstr(r.diagnosis, "do not follow"))
			fail_msg("seed %llu truncation: %s", (unsigned long long)seed, r.diagnosis);

		gemm(seed, GEMM_SAME, step, ref, cand, exact);
		quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
		assert_non_null(strstr(r.diagnosis, "every value exact"));
	}
}

/* A quantized output per row (layernorm_w8a8's): rows whose ranges differ 16-fold, each row's
 * largest value placed so that a tensor-wide grid rounds it up past the row's own range. One
 * scale for the tensor then puts values "beyond [-127, 127]" in the reference's steps, which is
 * the coarser scale, not a missing clamp; a missing clamp on the reference's own (static) steps
 * is still called one. */
static void test_overshoot_is_not_a_missing_clamp(void **state)
{
	enum { LR = 32, LC = 64 };
	static double rs[LR], step[LR * LC], ref[LR * LC], cand[LR * LC], exact[LR * LC];
	struct quant_scale sc[1] = { { "y_scale", rs, LR } };
	size_t shape[2] = { LR, LC };
	struct quant_spec spec;
	struct quant_result r;
	double st;

	(void)state;
	spec_2d(&spec, "y_scale(0)", "0 : row", "1 : column", "-127, 127", "1");
	rng_state = 21;
	st = 16.0 / 127;                        /* the tensor-wide step: the largest row's max is 16 */
	for (int i = 0; i < LR; i++) {
		/* row maxima from 16 down to 1, each (k + 0.6) tensor-wide steps: it rounds up */
		double amax = i ? (floor((1 + 15.0 * (LR - 1 - i) / (LR - 1)) / st) + 0.6) * st : 16;

		rs[i] = amax / 127;
		for (int j = 0; j < LC; j++) {
			double z = j ? amax * (2 * urand() - 1) : amax;

			exact[i * LC + j] = z;
			ref[i * LC + j] = nearbyint(z / rs[i]) * rs[i];
			cand[i * LC + j] = nearbyint(z / st) * st;
		}
	}
	assert_int_equal(quant_step_fill(&spec, shape, 2, sc, 1, step), KBX_OK);
	quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
	if (getenv("KBX_TEST_VERBOSE"))
		fprintf(stderr, "per tensor, overshooting: %s\n", r.diagnosis);
	assert_true(r.cand_beyond > 0);         /* the overshoot is there ... */
	assert_null(strstr(r.diagnosis, "saturation missing"));  /* ... and not called a missing clamp */
	assert_non_null(strstr(r.diagnosis, "do not follow each row's range"));

	/* the reference's own steps, static, with values past its range: clamped by the reference,
	 * not by the candidate */
	for (int i = 0; i < LR; i++)
		for (int j = 0; j < LC; j++) {
			double z = exact[i * LC + j] * (j % 8 ? 1 : 1.2), q = nearbyint(z / rs[i]);

			exact[i * LC + j] = z;
			ref[i * LC + j] = fmax(-127, fmin(127, q)) * rs[i];
			cand[i * LC + j] = q * rs[i];
		}
	quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
	if (getenv("KBX_TEST_VERBOSE"))
		fprintf(stderr, "missing clamp: %s\n", r.diagnosis);
	assert_true(r.cand_beyond > 0);
	assert_non_null(strstr(r.diagnosis, "saturation missing"));
}

/* Two rows (layernorm_w8a8's corner_extreme_affine) are too few to say whether the steps follow
 * each row's range; the values past the range say it themselves: overshooting on a coarser grid,
 * each is farther from the exact result than the reference's, and it is not a missing clamp;
 * unclamped on the reference's own steps, nearer, and it is one. */
static void test_overshoot_on_two_rows(void **state)
{
	enum { LR = 2, LC = 4 };
	double rs[LR] = { 16.0 / 127, 0 }, step[LR * LC], ref[LR * LC], cand[LR * LC], exact[LR * LC];
	struct quant_scale sc[1] = { { "y_scale", rs, LR } };
	size_t shape[2] = { LR, LC };
	struct quant_spec spec;
	struct quant_result r;
	const double st = 16.0 / 127;           /* the tensor-wide step */
	/* row 1's largest value, 2.6 coarse steps: it rounds up to 3, past its own 127 fine steps */
	const double z[LR * LC] = { 16, -9.3, 4.1, 0.7, 2.6 * st, -1.2 * st, 0.4 * st, -0.1 * st };

	(void)state;
	spec_2d(&spec, "y_scale(0)", "0 : row", "1 : column", "-127, 127", "1");
	rs[1] = z[4] / 127;
	for (int i = 0; i < LR * LC; i++) {
		double fine = rs[i / LC];

		exact[i] = z[i];
		ref[i] = fmax(-127, fmin(127, nearbyint(z[i] / fine))) * fine;
		cand[i] = nearbyint(z[i] / st) * st;
	}
	assert_int_equal(quant_step_fill(&spec, shape, 2, sc, 1, step), KBX_OK);
	quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
	assert_true(r.cand_beyond > 0);
	if (strstr(r.diagnosis, "saturation missing"))
		fail_msg("overshoot on two rows: %s", r.diagnosis);
	/* the reference's own steps with a value past its range: the candidate leaves it unclamped */
	for (int i = 0; i < LR * LC; i++) {
		double fine = rs[i / LC], x = z[i] * (i == 5 ? 1.5 * 127 * fine / fabs(z[i]) : 1);

		exact[i] = x;
		ref[i] = fmax(-127, fmin(127, nearbyint(x / fine))) * fine;
		cand[i] = nearbyint(x / fine) * fine;
	}
	quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
	assert_true(r.cand_beyond > 0);
	if (!strstr(r.diagnosis, "saturation missing"))
		fail_msg("missing clamp on two rows: %s", r.diagnosis);
}

/* Truncating v / scale leans every quantized factor toward zero: the GEMM's output shrinks by the
 * same couple of percent in every row and column, which the lens names (with or without the
 * exact product); one scale per tensor leaves the magnitude alone and is not taken for it. */
static void test_gemm_truncation_shrinks(void **state)
{
	static double step[GM * GN], ref[GM * GN], cand[GM * GN], exact[GM * GN];
	struct quant_spec spec;
	struct quant_result r;
	size_t shape[2] = { GM, GN };

	(void)state;
	spec_matmul(&spec);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		gemm(seed, GEMM_TRUNCATE, step, ref, cand, exact);
		quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
		if (getenv("KBX_TEST_VERBOSE"))
			fprintf(stderr, "truncation: %s\n", r.diagnosis);
		if (!strstr(r.diagnosis, "smaller in magnitude than the reference's") ||
		    !strstr(r.diagnosis, "in every row and column") || !strstr(r.diagnosis, "truncated instead of rounded"))
			fail_msg("seed %llu truncation: %s", (unsigned long long)seed, r.diagnosis);
		quant_analyse(&spec, cand, ref, step, shape, 2, &r);
		assert_non_null(strstr(r.diagnosis, "truncated instead of rounded"));

		gemm(seed, GEMM_PER_TENSOR, step, ref, cand, exact);
		quant_analyse_exact(&spec, cand, ref, exact, step, shape, 2, &r);
		assert_null(strstr(r.diagnosis, "in magnitude"));
		assert_null(strstr(r.diagnosis, "multiple of the reference's"));
	}
}

/* The whole output one factor times the reference's: the factor, and the usual ratio it is. */
static void test_constant_factor(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 13);
	for (int e = 0; e < R * C; e++)
		f.cand[e] = f.ref[e] * 127.0 / 255.0;
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "every value 0.498 (127/255) times the reference's") ||
	    !strstr(r.diagnosis, "a constant factor"))
		fail_msg("%s", r.diagnosis);
	for (int e = 0; e < R * C; e++)
		f.cand[e] = f.ref[e] * 1.125;
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "every value 1.125 (9/8) times"))
		fail_msg("9/8: %s", r.diagnosis);
}

/* Each row (then each column) its own multiple of the reference's: named as such, with the range
 * of the multiples, and not as a shrink toward zero though every multiple is below 1. */
static void test_row_multiples(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 14);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] * (0.95 + 0.004 * i);
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "each row its own multiple of the reference's (0.95 to 0.994") ||
	    !strstr(r.diagnosis, "the row scales differ by a factor"))
		fail_msg("rows: %s", r.diagnosis);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] * (j % 2 ? 0.5 : 1.5);
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "each column its own multiple of the reference's (0.5 to 1.5"))
		fail_msg("columns: %s", r.diagnosis);
}

/* Four channels, two of them a hundred steps wide and two a couple of steps, with every value
 * moved up to a step toward zero; each pixel holds one value of each channel: the shrink is found
 * in every channel and pixel, and no pixel is taken for its own multiple. (conv2d_w8a8's
 * channel_ranges case, whose pixels a fit in raw values once took so, is held by
 * tests/core/lens_sim.sh.) */
static void test_shrink_with_wide_and_narrow_channels(void **state)
{
	enum { CH = 4, PX = 64 };
	static double cs[CH] = { 1, 1, 0.01, 0.01 }, xs[1] = { 1 }, step[CH * PX], ref[CH * PX], cand[CH * PX];
	struct quant_scale sc[2] = { { "x_scale", xs, 1 }, { "w_scale", cs, CH } };
	size_t shape[2] = { CH, PX };
	struct quant_spec spec;
	struct quant_result r;

	(void)state;
	spec_2d(&spec, "x_scale() * w_scale(0)", "0 : channel", "1 : pixel", "-127, 127", NULL);
	assert_int_equal(quant_step_fill(&spec, shape, 2, sc, 2, step), KBX_OK);
	rng_state = 31;
	for (int c = 0; c < CH; c++)
		for (int p = 0; p < PX; p++) {
			double q = (c < 2 ? 60 + 60 * urand() : 1 + 2 * urand()) * (urand() < 0.5 ? -1 : 1);
			double moved = q > 0 ? fmax(0, q - 2 * urand()) : fmin(0, q + 2 * urand());

			ref[c * PX + p] = q * step[c * PX + p];
			cand[c * PX + p] = moved * step[c * PX + p];
		}
	quant_analyse(&spec, cand, ref, step, shape, 2, &r);
	if (getenv("KBX_TEST_VERBOSE"))
		fprintf(stderr, "wide and narrow channels: %s\n", r.diagnosis);
	assert_null(strstr(r.diagnosis, "its own multiple"));
	assert_non_null(strstr(r.diagnosis, "smaller in magnitude"));
}

/* A pattern along an axis the steps keep no scale for (linear_w4a16's batch rows: step =
 * w_scale(1)) is not blamed on a scale of that axis; along the scaled axis it still is. */
static void test_no_scale_no_blame(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 15);
	spec_2d(&f.spec, "x_scale(0) * w_scale(1)", "0 : row", "1 : channel", "-8, 7", NULL);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] + (2 + (i * 7) % R) * f.step[i * C + j];
	analyse(&f, &r);
	assert_non_null(strstr(r.diagnosis, "the row scales differ"));  /* x_scale(0): rows have one */

	assert_int_equal(quant_spec_set(&f.spec, "step", "w_scale(1)", "test"), KBX_OK);
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "error constant along each row, different across rows") ||
	    !strstr(r.diagnosis, "the steps keep no row scale") || strstr(r.diagnosis, "row scales differ"))
		fail_msg("rows without a scale: %s", r.diagnosis);

	/* both axes differ, only the channels keep a scale: the channels are blamed, the rows not */
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			f.cand[i * C + j] = f.ref[i * C + j] + (0.06 / f.rs[i]) * (0.05 / f.cs[j]) * f.step[i * C + j];
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "the channel scales differ (the steps keep no row scale"))
		fail_msg("one of two axes scaled: %s", r.diagnosis);
}

/* Values of a third of a step that differ by a fifth (linear_w4a16's inputs scaled by 0.01,
 * against scales taken for inputs of 1): within half a step, yet not "float rounding only". */
static void test_values_too_small_for_their_steps(void **state)
{
	struct fixture f;
	struct quant_result r;

	(void)state;
	fixture_init(&f, 16);
	for (int e = 0; e < R * C; e++) {
		f.ref[e] = (0.1 + 0.4 * urand()) * f.step[e];
		f.cand[e] = f.ref[e] * (urand() < 0.5 ? 0.8 : 1.2);
	}
	analyse(&f, &r);
	if (!strstr(r.diagnosis, "within half a step") || !strstr(r.diagnosis, "too small for these steps") ||
	    strstr(r.diagnosis, "float rounding only"))
		fail_msg("%s", r.diagnosis);
	/* the same relative error on values of tens of steps is more than half a step: not this line */
	fixture_init(&f, 16);
	for (int e = 0; e < R * C; e++)
		f.cand[e] = f.ref[e] + 0.3 * f.step[e];
	analyse(&f, &r);
	assert_non_null(strstr(r.diagnosis, "float rounding only"));
}

/* The conclusion follows the first ": " outside parentheses; evidence may hold ": " inside them. */
static void test_conclusion(void **state)
{
	size_t n;
	const char *d;

	(void)state;
	d = "error constant along each row, different across rows: the row scales differ";
	assert_string_equal(quant_conclusion(d, &n), "the row scales differ");
	assert_int_equal(n, strlen("error constant along each row, different across rows"));
	d = "error differs across tokens (worst token 3: 5 steps) and across dims: the token scales differ (the "
	    "steps keep no dim scale: that pattern follows the values)";
	assert_string_equal(quant_conclusion(d, &n),
			    "the token scales differ (the steps keep no dim scale: that pattern follows the values)");
	assert_int_equal(n, strlen("error differs across tokens (worst token 3: 5 steps) and across dims"));
	d = "no element has a quantization step to measure against (3 left out: a scale of 0 or a NaN/Inf)";
	assert_ptr_equal(quant_conclusion(d, &n), d);
	assert_int_equal(n, 0);
	d = "a line that ends in a colon: ";
	assert_ptr_equal(quant_conclusion(d, &n), d);
	assert_int_equal(n, 0);
	d = "unbalanced ) parenthesis: still split";
	assert_string_equal(quant_conclusion(d, &n), "still split");
	assert_string_equal(quant_conclusion("", &n), "");
	assert_int_equal(n, 0);
}

static void test_json_round_trip(void **state)
{
	struct fixture f;
	struct quant_result r, back;
	json_t *j;
	char *text;

	(void)state;
	fixture_init(&f, 12);
	assert_int_equal(quant_spec_set(&f.spec, "quantized", "1", "t"), KBX_OK);
	for (int i = 0; i < R; i++)
		f.cand[i * C + 3] = f.ref[i * C + 3] + (1 + i) * f.step[i * C + 3];
	f.cand[5] = 150 * f.step[5];
	analyse(&f, &r);
	j = quant_to_json(&r);
	assert_non_null(j);
	/* through text, as the events travel */
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	j = json_loads(text, 0, NULL);
	free(text);
	assert_int_equal(quant_from_json(j, &back), KBX_OK);
	assert_true(back.valid && back.has_saturation);
	assert_int_equal(back.n, r.n);
	assert_memory_equal(back.hist, r.hist, sizeof(r.hist));
	assert_int_equal(back.cand_beyond, r.cand_beyond);
	assert_int_equal(back.ref_at_end, r.ref_at_end);
	assert_string_equal(back.diagnosis, r.diagnosis);
	{
		size_t n;

		assert_string_equal(json_string_value(json_object_get(j, "conclusion")),
				    quant_conclusion(r.diagnosis, &n));
		assert_true(n > 0);   /* this diagnosis has its evidence before the conclusion */
	}
	assert_string_equal(back.rows.name, "row");
	assert_int_equal(back.rows.ncells, r.rows.ncells);
	assert_int_equal(back.cols.nworst, r.cols.nworst);
	assert_true(back.cols.worst[0] == r.cols.worst[0]);
	assert_true(fabs(back.rows.worst_mean[0] - r.rows.worst_mean[0]) < 1e-12);
	for (int c = 0; c < r.cols.ncells; c++)
		assert_true(back.cols.cell_max[c] == r.cols.cell_max[c]);
	assert_true(back.max_steps == r.max_steps && back.noise == r.noise);
	json_array_clear(json_object_get(j, "hist"));
	assert_int_equal(quant_from_json(j, &back), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "'hist'"));
	json_decref(j);
	/* without saturation there is no saturation object */
	assert_int_equal(quant_spec_set(&f.spec, "quantized", "0", "t"), KBX_OK);
	analyse(&f, &r);
	j = quant_to_json(&r);
	assert_null(json_object_get(j, "saturation"));
	assert_int_equal(quant_from_json(j, &back), KBX_OK);
	assert_false(back.has_saturation);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_fill),
		cmocka_unit_test(test_step_fill_reduced),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_exact_and_float_rounding),
		cmocka_unit_test(test_row_scaled),
		cmocka_unit_test(test_row_scaled_noisy),
		cmocka_unit_test(test_column_scaled),
		cmocka_unit_test(test_row_and_column_scaled),
		cmocka_unit_test(test_one_step_noise),
		cmocka_unit_test(test_uniform_noise),
		cmocka_unit_test(test_clamp_missing),
		cmocka_unit_test(test_transposed_scale),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_profile_cells),
		cmocka_unit_test(test_gemm_per_tensor_against_exact),
		cmocka_unit_test(test_overshoot_is_not_a_missing_clamp),
		cmocka_unit_test(test_overshoot_on_two_rows),
		cmocka_unit_test(test_gemm_truncation_shrinks),
		cmocka_unit_test(test_constant_factor),
		cmocka_unit_test(test_row_multiples),
		cmocka_unit_test(test_shrink_with_wide_and_narrow_channels),
		cmocka_unit_test(test_no_scale_no_blame),
		cmocka_unit_test(test_values_too_small_for_their_steps),
		cmocka_unit_test(test_conclusion),
		cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
