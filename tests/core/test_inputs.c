#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/inputs.h"
#include "core/util.h"

#define MILLION 1000000

static struct gen_spec parse_ok(const char *text)
{
	struct gen_spec g;

	if (gen_parse(text, &g) != KBX_OK)
		fail_msg("gen_parse('%s'): %s", text, kbx_last_error());
	return g;
}

static void *fill_ok(const char *text, enum dtype dt, size_t n, uint64_t key)
{
	struct gen_spec g = parse_ok(text);
	void *buf = xcalloc(n ? n : 1, dtype_size(dt));

	if (gen_fill(&g, dt, buf, n, NULL, 0, key) != KBX_OK)
		fail_msg("gen_fill('%s'): %s", text, kbx_last_error());
	gen_spec_free(&g);
	return buf;
}

static double *fill_f64(const char *text, size_t n, uint64_t key)
{
	return fill_ok(text, DT_F64, n, key);
}

/* ---- parsing ------------------------------------------------------------------------------ */

static void test_parse_each_generator(void **state)
{
	struct gen_spec g;

	g = parse_ok("randn");
	assert_int_equal(g.kind, GEN_RANDN);
	g = parse_ok("  uniform( -2 , 0.5 ) ");
	assert_int_equal(g.kind, GEN_UNIFORM);
	assert_true(g.a == -2 && g.b == 0.5);
	g = parse_ok("uniform");
	assert_true(g.a == 0 && g.b == 1);
	g = parse_ok("outlier(0.001, 10)");
	assert_int_equal(g.kind, GEN_OUTLIER);
	assert_true(g.a == 0.001 && g.b == 10);
	g = parse_ok("randint(-3, 4)");
	assert_int_equal(g.kind, GEN_RANDINT);
	assert_true(g.a == -3 && g.b == 4);
	g = parse_ok("bool");
	assert_true(g.kind == GEN_BOOL && g.a == 0.5);
	g = parse_ok("bool(0.25)");
	assert_true(g.a == 0.25);
	g = parse_ok("zeros");
	assert_int_equal(g.kind, GEN_ZEROS);
	g = parse_ok("ones");
	assert_int_equal(g.kind, GEN_ONES);
	g = parse_ok("full(-2.5)");
	assert_true(g.kind == GEN_FULL && g.a == -2.5);
	g = parse_ok("arange");
	assert_true(g.kind == GEN_ARANGE && g.a == 0 && g.b == 1);
	g = parse_ok("arange(5)");
	assert_true(g.a == 5 && g.b == 1);
	g = parse_ok("arange(1, 0.5)");
	assert_true(g.a == 1 && g.b == 0.5);
	g = parse_ok("special");
	assert_int_equal(g.kind, GEN_SPECIAL);
	g = parse_ok("spd");
	assert_true(g.kind == GEN_SPD && g.a == 1);
	g = parse_ok("spd(1e-3)");
	assert_true(g.a == 1e-3);
	g = parse_ok("diagdom(2)");
	assert_true(g.kind == GEN_DIAGDOM && g.a == 2);
	/* an expression without names is fine */
	g = parse_ok("uniform(-1 / 2.0, 2 * 3)");
	assert_true(g.a == -0.5 && g.b == 6);
}

static void test_parse_values(void **state)
{
	struct gen_spec g = parse_ok("values(nan, inf, -inf, -0, 0, 1e-40, -6, max(2, 3), -INF)");

	assert_int_equal(g.kind, GEN_VALUES);
	assert_int_equal(g.nvalues, 9);
	assert_true(isnan(g.values[0]));
	assert_true(isinf(g.values[1]) && g.values[1] > 0);
	assert_true(isinf(g.values[2]) && g.values[2] < 0);
	assert_true(g.values[3] == 0 && signbit(g.values[3]));
	assert_true(g.values[4] == 0 && !signbit(g.values[4]));
	assert_true(g.values[5] == 1e-40);
	assert_true(g.values[6] == -6);
	assert_true(g.values[7] == 3);
	assert_true(isinf(g.values[8]) && g.values[8] < 0);
	gen_spec_free(&g);
}

static void test_parse_env(void **state)
{
	struct expr_env env = { 0 };
	struct gen_spec g;

	expr_env_set_int(&env, "n", 1024);
	assert_int_equal(gen_parse_env("randint(0, n)", &env, &g), KBX_OK);
	assert_true(g.kind == GEN_RANDINT && g.a == 0 && g.b == 1024);
	assert_int_equal(gen_parse_env("values(n, n - 1, -n)", &env, &g), KBX_OK);
	assert_true(g.nvalues == 3 && g.values[0] == 1024 && g.values[1] == 1023 && g.values[2] == -1024);
	gen_spec_free(&g);
	/* without the environment the name is unknown, and the message says which */
	assert_int_equal(gen_parse("randint(0, n)", &g), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "'n'"));
	assert_non_null(strstr(kbx_last_error(), "randint(0, n)"));
	expr_env_free(&env);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "", "unknown generator ''" },
		{ "gaussian", "unknown generator 'gaussian'" },
		{ "randn(", "expected ')'" },
		{ "randn(1)", "expected randn" },
		{ "uniform(1)", "expected uniform(lo, hi)" },
		{ "uniform(1, 0)", "lo < hi" },
		{ "uniform(0, inf)", "lo < hi" },
		{ "randint(0.5, 3)", "integers" },
		{ "randint(3, 3)", "lo < hi" },
		{ "bool(2)", "0 <= p <= 1" },
		{ "outlier(-0.1, 2)", "0 <= p <= 1" },
		{ "outlier(0.1)", "outlier(p, scale)" },
		{ "values()", "values(v1, v2, ...)" },
		{ "values(1,,2)", "empty argument 2" },
		{ "values(1, abc)", "'abc'" },
		{ "full()", "full(v)" },
		{ "spd(-1)", "d >= 0" },
		{ "diagdom(nan)", "d >= 0" },
		{ "randn x", "expected '('" },
		{ "uniform(0, 1) extra", "after ')'" },
		{ "zeros(3)", "expected zeros" },
		{ "arange(1, 2, 3)", "arange(start, step)" },
		{ "uniform(1/0, 2)", "uniform(1/0, 2)" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gen_spec g;
		enum kbx_status st = gen_parse(bad[i].text, &g);

		if (st == KBX_OK)
			fail_msg("'%s' parsed", bad[i].text);
		if (!strstr(kbx_last_error(), bad[i].want))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, kbx_last_error(), bad[i].want);
		assert_null(g.values);
	}
}

static void test_format_round_trip(void **state)
{
	static const char *const texts[] = {
		"randn", "uniform(0.1, 0.7)", "uniform", "outlier(0.001, 10)", "randint(-5, 1000000)", "bool(0.3)",
		"values(nan, -0, 1e-40, 0.1, -inf, 3.4028234663852886e38, 1)", "zeros", "ones", "full(-0)",
		"arange(0.5, -0.25)", "special", "spd(0.001)", "diagdom",
	};
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct gen_spec a = parse_ok(texts[i]), b;
		char *s = gen_format(&a);
		int k;

		if (gen_parse(s, &b) != KBX_OK)
			fail_msg("'%s' -> '%s' does not parse: %s", texts[i], s, kbx_last_error());
		assert_int_equal(a.kind, b.kind);
		assert_memory_equal(&a.a, &b.a, sizeof(double));
		assert_memory_equal(&a.b, &b.b, sizeof(double));
		assert_int_equal(a.nvalues, b.nvalues);
		for (k = 0; k < a.nvalues; k++)
			if (memcmp(&a.values[k], &b.values[k], sizeof(double)) != 0 &&
			    !(isnan(a.values[k]) && isnan(b.values[k])))
				fail_msg("'%s' -> '%s': value %d differs", texts[i], s, k);
		free(s);
		gen_spec_free(&a);
		gen_spec_free(&b);
	}
	{
		struct gen_spec g = parse_ok("uniform(0.1, 1)");
		char *s = gen_format(&g);

		assert_string_equal(s, "uniform(0.1, 1)");
		free(s);
	}
}

/* ---- keys and determinism --------------------------------------------------------------------- */

static void test_keys(void **state)
{
	uint64_t k = gen_key(0, "Activation/gelu", "corner", "x");

	assert_true(k == gen_key(0, "Activation/gelu", "corner", "x"));
	assert_true(k != gen_key(1, "Activation/gelu", "corner", "x"));
	assert_true(k != gen_key(0, "Activation/relu", "corner", "x"));
	assert_true(k != gen_key(0, "Activation/gelu", "corner2", "x"));
	assert_true(k != gen_key(0, "Activation/gelu", "corner", "y"));
	/* the separators keep fields apart */
	assert_true(gen_key(0, "ab", "c", "x") != gen_key(0, "a", "bc", "x"));
	assert_true(gen_key(0, "a", "", "bx") != gen_key(0, "a", "b", "x"));
	assert_true(gen_key(0x100, "t", "c", "a") != gen_key(0x1, "t", "c", "a"));
}

static void test_determinism(void **state)
{
	static const char *const gens[] = { "randn", "uniform(-1, 1)", "outlier(0.1, 10)", "randint(0, 100)",
					    "bool(0.5)", "special" };
	size_t i, n = 100003, j, same;

	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		double *a = fill_f64(gens[i], n, 42), *b = fill_f64(gens[i], n, 42), *c = fill_f64(gens[i], n, 43);

		for (j = 0; j < n; j++)
			if (memcmp(&a[j], &b[j], sizeof(double)) != 0)
				fail_msg("'%s' element %zu differs between two fills with the same key", gens[i], j);
		for (same = 0, j = 0; j < n; j++)
			same += memcmp(&a[j], &c[j], sizeof(double)) == 0;
		/* bool and randint repeat values by chance; continuous ones almost never */
		if (same > n * 6 / 10)
			fail_msg("'%s': %zu of %zu equal for different keys", gens[i], same, n);
		free(a);
		free(b);
		free(c);
	}
}

/* Big buffers are filled by threads: the values must not depend on the split. */
static void test_fill_independent_of_size(void **state)
{
	size_t big = (size_t)1 << 19, small = 1000;
	float *a = fill_ok("randn", DT_F32, big, 7), *b = fill_ok("randn", DT_F32, small, 7);
	float *c;

	assert_memory_equal(a, b, small * sizeof(float));
	/* c64 is filled as 2n floats: element i component c draws at index 2i + c */
	c = fill_ok("randn", DT_C64, small / 2, 7);
	assert_memory_equal(c, b, small * sizeof(float));
	free(a);
	free(b);
	free(c);
	a = fill_ok("randn", DT_F32, 0, 7);
	free(a);
}

/* ---- distributions ---------------------------------------------------------------------------- */

static void moments(const double *x, size_t n, double *mean, double *var, double *kurt)
{
	double s = 0, s2 = 0, s4 = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / (double)n;
	for (i = 0; i < n; i++) {
		double d = x[i] - *mean;

		s2 += d * d;
		s4 += d * d * d * d;
	}
	*var = s2 / (double)n;
	*kurt = s4 / (double)n / (*var * *var);
}

static void test_randn_moments(void **state)
{
	double *x = fill_f64("randn", MILLION, 1), mean, var, kurt;
	size_t i, tail = 0;

	moments(x, MILLION, &mean, &var, &kurt);
	/* standard errors: mean 1e-3, variance 1.4e-3, kurtosis 5e-3; 5 sigma */
	assert_true(fabs(mean) < 5e-3);
	assert_true(fabs(var - 1) < 7e-3);
	assert_true(fabs(kurt - 3) < 0.025);
	for (i = 0; i < MILLION; i++) {
		assert_true(isfinite(x[i]));
		tail += fabs(x[i]) > 1.959963984540054;
	}
	/* P(|z| > 1.96) = 0.05, sd 2.2e-4 */
	assert_true(fabs((double)tail / MILLION - 0.05) < 1.1e-3);
	free(x);
}

static void test_uniform_moments(void **state)
{
	double *x = fill_f64("uniform(2, 5)", MILLION, 2), mean, var, kurt;
	size_t i;

	moments(x, MILLION, &mean, &var, &kurt);
	assert_true(fabs(mean - 3.5) < 5 * 0.866 / 1000);
	assert_true(fabs(var - 0.75) < 5 * 0.6708 / 1000);
	assert_true(fabs(kurt - 1.8) < 0.01);
	for (i = 0; i < MILLION; i++)
		assert_true(x[i] >= 2 && x[i] < 5);
	free(x);
}

/* Rounding to a narrow dtype must not reach hi: uniform is [lo, hi). */
static void test_uniform_below_hi(void **state)
{
	static const enum dtype dts[] = { DT_F32, DT_F16, DT_BF16 };
	size_t i, k, n = 200000;

	for (k = 0; k < 3; k++) {
		uint16_t *h = fill_ok("uniform(0, 1)", dts[k], n, 3);
		double maxv = 0;

		for (i = 0; i < n; i++) {
			double v = dtype_get(dts[k], h, i, 0);

			assert_true(v >= 0 && v < 1);
			if (v > maxv)
				maxv = v;
		}
		/* the largest value below 1 does occur for the narrow types (1 in 256 for bf16) */
		if (dts[k] == DT_BF16)
			assert_true(maxv == 1 - 1.0 / 256);
		free(h);
	}
}

static void test_randint_range(void **state)
{
	size_t n = 700000, i, counts[7] = { 0 };
	int32_t *x = fill_ok("randint(-3, 4)", DT_I32, n, 4);
	float *f;

	for (i = 0; i < n; i++) {
		assert_true(x[i] >= -3 && x[i] <= 3);
		counts[x[i] + 3]++;
	}
	for (i = 0; i < 7; i++)
		assert_true(fabs((double)counts[i] - 100000) < 1500); /* sd 293 */
	free(x);
	f = fill_ok("randint(0, 1000)", DT_F32, 10000, 5);
	for (i = 0; i < 10000; i++)
		assert_true(f[i] == floorf(f[i]) && f[i] >= 0 && f[i] < 1000);
	free(f);
}

static void test_bool_and_outlier(void **state)
{
	size_t n = MILLION, i, ones = 0, big = 0;
	double absum = 0;
	uint8_t *b = fill_ok("bool(0.25)", DT_BOOL, n, 6);
	double *r, *o;

	for (i = 0; i < n; i++) {
		assert_true(b[i] == 0 || b[i] == 1);
		ones += b[i];
	}
	assert_true(fabs((double)ones / n - 0.25) < 5 * 4.33e-4);
	free(b);

	/* outlier keeps the randn draw of the same key and scales about p of them */
	r = fill_f64("randn", n, 8);
	o = fill_f64("outlier(0.01, 100)", n, 8);
	for (i = 0; i < n; i++) {
		if (o[i] == r[i])
			continue;
		assert_true(o[i] == r[i] * 100);
		absum += fabs(r[i]);
		big++;
	}
	assert_true(fabs((double)big / n - 0.01) < 5 * 9.95e-5);
	/* which elements become outliers is independent of their value: E|z| = sqrt(2/pi) */
	assert_true(fabs(absum / (double)big - 0.7978845608) < 0.04);
	free(r);
	free(o);
}

static void test_values_and_constants(void **state)
{
	int32_t *v = fill_ok("values(1, 2, 3)", DT_I32, 10, 0);
	float *c;
	double *d;
	size_t i;

	for (i = 0; i < 10; i++)
		assert_int_equal(v[i], (int32_t)(i % 3 + 1));
	free(v);
	/* c64 cycles over the flat components */
	c = fill_ok("values(1, 2, 3)", DT_C64, 4, 0);
	for (i = 0; i < 8; i++)
		assert_true(c[i] == (float)(i % 3 + 1));
	free(c);
	d = fill_f64("values(nan, -0, inf)", 5, 0);
	assert_true(isnan(d[0]) && d[1] == 0 && signbit(d[1]) && isinf(d[2]) && isnan(d[3]));
	free(d);
	d = fill_f64("zeros", 3, 0);
	assert_true(d[0] == 0 && d[2] == 0);
	free(d);
	d = fill_f64("ones", 3, 0);
	assert_true(d[0] == 1 && d[2] == 1);
	free(d);
	d = fill_f64("full(2.5)", 3, 0);
	assert_true(d[0] == 2.5 && d[2] == 2.5);
	free(d);
	d = fill_f64("arange(1, 0.5)", 4, 0);
	assert_true(d[0] == 1 && d[1] == 1.5 && d[3] == 2.5);
	free(d);
}

static void test_special(void **state)
{
	size_t n = 4096, i;
	float *x = fill_ok("special", DT_F32, n, 9);
	uint16_t *h;
	int nan = 0, pinf = 0, ninf = 0, nzero = 0, denorm = 0, maxf = 0, ordinary = 0;

	for (i = 0; i < n; i++) {
		float v = x[i];

		nan += isnan(v);
		pinf += isinf(v) && v > 0;
		ninf += isinf(v) && v < 0;
		nzero += v == 0 && signbit(v);
		denorm += fpclassify(v) == FP_SUBNORMAL;
		maxf += fabsf(v) == FLT_MAX;
		ordinary += isfinite(v) && fabsf(v) > 1e-3f && fabsf(v) < 10 && fabsf(v) != 1;
	}
	assert_true(nan > 0 && pinf > 0 && ninf > 0 && nzero > 0 && denorm > 0 && maxf > 0);
	assert_true(ordinary > (int)n / 3);
	free(x);
	/* the table follows the dtype: f16's largest finite value is 65504 */
	h = fill_ok("special", DT_F16, 64, 9);
	for (maxf = 0, i = 0; i < 64; i++)
		maxf += dtype_get(DT_F16, h, i, 0) == 65504;
	assert_true(maxf > 0);
	free(h);
}

/* ---- matrices ---------------------------------------------------------------------------------- */

static void check_spd(size_t batch, size_t m, uint64_t key)
{
	long long shape[3] = { (long long)batch, (long long)m, (long long)m };
	size_t n = batch * m * m, b, i, j, k;
	struct gen_spec g = parse_ok("spd(0.5)");
	double *a = xmalloc(n * sizeof(double)), *B = fill_f64("randn", n, key), *l;

	assert_int_equal(gen_fill(&g, DT_F64, a, n, shape, 3, key), KBX_OK);
	l = xmalloc(m * m * sizeof(double));
	for (b = 0; b < batch; b++) {
		const double *A = a + b * m * m, *Bm = B + b * m * m;

		for (i = 0; i < m; i++)
			for (j = 0; j < m; j++) {
				double s = 0;

				assert_true(A[i * m + j] == A[j * m + i]);
				/* A = B B^T / m + d I with B the randn draws of the same key */
				for (k = 0; k < m; k++)
					s += Bm[i * m + k] * Bm[j * m + k];
				s = s / (double)m + (i == j ? 0.5 : 0);
				if (fabs(A[i * m + j] - s) > 1e-12 * (1 + fabs(s)))
					fail_msg("spd [%zu, %zu] of %zu: %.17g, wanted %.17g", i, j, m, A[i * m + j], s);
			}
		/* Cholesky: every pivot positive */
		for (j = 0; j < m; j++) {
			double d = A[j * m + j];

			for (k = 0; k < j; k++)
				d -= l[j * m + k] * l[j * m + k];
			assert_true(d > 0);
			l[j * m + j] = sqrt(d);
			for (i = j + 1; i < m; i++) {
				double s = A[i * m + j];

				for (k = 0; k < j; k++)
					s -= l[i * m + k] * l[j * m + k];
				l[i * m + j] = s / l[j * m + j];
			}
		}
	}
	free(l);
	free(a);
	free(B);
	gen_spec_free(&g);
}

static void test_spd(void **state)
{
	check_spd(3, 17, 11);
	check_spd(1, 1, 12);
	/* large enough to be split among threads, with edge tiles */
	check_spd(1, 301, 13);
}

static void test_spd_f32_symmetric(void **state)
{
	long long shape[2] = { 70, 70 };
	struct gen_spec g = parse_ok("spd");
	float *a = xmalloc(70 * 70 * sizeof(float));
	size_t i, j;

	assert_int_equal(gen_fill(&g, DT_F32, a, 70 * 70, shape, 2, 5), KBX_OK);
	for (i = 0; i < 70; i++)
		for (j = 0; j < 70; j++)
			assert_true(a[i * 70 + j] == a[j * 70 + i]);
	free(a);
}

static void test_diagdom(void **state)
{
	long long shape[3] = { 2, 9, 9 };
	size_t n = 2 * 81, b, i, j;
	struct gen_spec g = parse_ok("diagdom(3)");
	double *a = xmalloc(n * sizeof(double)), *r = fill_f64("randn", n, 21);

	assert_int_equal(gen_fill(&g, DT_F64, a, n, shape, 3, 21), KBX_OK);
	for (b = 0; b < 2; b++)
		for (i = 0; i < 9; i++)
			for (j = 0; j < 9; j++) {
				size_t k = b * 81 + i * 9 + j;

				assert_true(a[k] == r[k] + (i == j ? 27.0 : 0.0));
			}
	free(a);
	free(r);
}

/* symmetric(lo, hi): A = A^T in every matrix of a batch, in [lo, hi), the upper triangle (and
 * diagonal) drawn as uniform(lo, hi) at the element's own index; batches differ */
static void test_symmetric(void **state)
{
	long long shape[3] = { 3, 17, 17 }, rect[2] = { 4, 5 };
	size_t n = 3 * 289, b, i, j;
	struct gen_spec g = parse_ok("symmetric(-2, 3)");
	float *a = xmalloc(n * sizeof(float));
	double *u = fill_f64("uniform(-2, 3)", n, 22);
	char *text = gen_format(&g);

	assert_string_equal(text, "symmetric(-2, 3)");
	free(text);
	assert_int_equal(gen_fill(&g, DT_F32, a, n, shape, 3, 22), KBX_OK);
	for (b = 0; b < 3; b++)
		for (i = 0; i < 17; i++)
			for (j = 0; j < 17; j++) {
				size_t k = b * 289 + i * 17 + j, up = b * 289 + (i < j ? i * 17 + j : j * 17 + i);

				assert_true(a[k] == a[b * 289 + j * 17 + i]);
				assert_true(a[k] >= -2 && a[k] < 3);
				assert_true(a[k] == (float)u[up]);
			}
	assert_true(a[1] != a[289 + 1]);
	assert_int_not_equal(gen_check(&g, DT_F32, rect, 2), KBX_OK);
	assert_int_not_equal(gen_check(&g, DT_I32, shape, 3), KBX_OK);
	free(a);
	free(u);
	kbx_clear_error();
	assert_int_not_equal(gen_parse("symmetric(1, 1)", &g), KBX_OK);
	assert_non_null(strstr(kbx_last_error(), "lo < hi"));
}

/* diagdom is elementwise: a matrix larger than spd's 2^28 entries' limit is fine (only a
 * corner is looked at: the values do not depend on the matrix's neighbours) */
static void test_diagdom_large(void **state)
{
	long long shape[2] = { 16385, 16385 };
	size_t n = (size_t)16385 * 16385;
	struct gen_spec g = parse_ok("diagdom(0.5)");
	float *a = malloc(n * sizeof(float));

	if (!a)
		skip();
	assert_int_equal(gen_fill(&g, DT_F32, a, n, shape, 2, 23), KBX_OK);
	assert_true(a[0] > 8192.5f - 10 && a[0] < 8192.5f + 10);
	assert_true(a[n - 1] > 8192.5f - 10);
	assert_true(fabsf(a[1]) < 10 && fabsf(a[16385]) < 10);
	free(a);
}

static void test_check_dtype_and_shape(void **state)
{
	struct gen_spec g;
	long long sq[2] = { 4, 4 }, rect[2] = { 4, 5 };
	char buf[64];

	g = parse_ok("spd");
	assert_int_equal(gen_check(&g, DT_F32, sq, 2), KBX_OK);
	assert_int_not_equal(gen_check(&g, DT_F32, rect, 2), KBX_OK);
	assert_non_null(strstr(kbx_last_error(), "square"));
	assert_int_not_equal(gen_check(&g, DT_F32, sq, 1), KBX_OK);
	assert_int_not_equal(gen_check(&g, DT_I32, sq, 2), KBX_OK);
	assert_int_not_equal(gen_check(&g, DT_C64, sq, 2), KBX_OK);
	assert_int_not_equal(gen_fill(&g, DT_F32, buf, 4, rect, 2, 0), KBX_OK);
	g = parse_ok("special");
	assert_int_not_equal(gen_check(&g, DT_I32, NULL, 0), KBX_OK);
	assert_non_null(strstr(kbx_last_error(), "'i32'"));
	assert_int_equal(gen_check(&g, DT_BF16, NULL, 0), KBX_OK);
	g = parse_ok("values(1, nan)");
	assert_int_not_equal(gen_check(&g, DT_I8, NULL, 0), KBX_OK);
	assert_int_not_equal(gen_fill(&g, DT_I8, buf, 4, NULL, 0, 0), KBX_OK);
	assert_int_equal(gen_check(&g, DT_F16, NULL, 0), KBX_OK);
	gen_spec_free(&g);
}

/* ---- garbage ----------------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint32_t next_rand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void test_garbage(void **state)
{
	static const char *const seeds[] = { "uniform(0, 1)", "values(nan, -0, 1e-40, max(1, 2))", "randint(0, n)",
					     "outlier(0.001, 10)", "spd(1)", "bool(0.5)", "arange(1, 2)" };
	static const char alphabet[] = "()(),,,.. -+*/%0123456789eEnaifxyz_ \t\"'[]\x01\xff";
	struct expr_env env = { 0 };
	int iter;

	expr_env_set_int(&env, "n", 17);
	for (iter = 0; iter < 20000; iter++) {
		char text[96];
		struct gen_spec g;
		size_t len, k;
		int edits;

		if (iter % 2) {
			len = next_rand() % (sizeof(text) - 1);
			for (k = 0; k < len; k++)
				text[k] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
			text[len] = '\0';
		} else {
			snprintf(text, sizeof(text), "%s", seeds[next_rand() % (sizeof(seeds) / sizeof(seeds[0]))]);
			len = strlen(text);
			for (edits = 1 + (int)(next_rand() % 3); edits > 0 && len > 0; edits--) {
				k = next_rand() % len;
				text[k] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
			}
			if (next_rand() % 4 == 0)
				text[next_rand() % (len + 1)] = '\0';
		}
		if (gen_parse_env(text, &env, &g) == KBX_OK) {
			char *s = gen_format(&g);
			struct gen_spec h;

			/* whatever parses formats to text that parses again */
			if (gen_parse(s, &h) != KBX_OK)
				fail_msg("'%s' -> '%s': %s", text, s, kbx_last_error());
			gen_spec_free(&h);
			free(s);
			if (g.kind != GEN_SPD && g.kind != GEN_DIAGDOM) {
				float out[8];

				assert_int_equal(gen_fill(&g, DT_F32, out, 8, NULL, 0, (uint64_t)iter), KBX_OK);
			}
			gen_spec_free(&g);
		} else {
			assert_true(kbx_last_error()[0] != '\0');
		}
	}
	expr_env_free(&env);
}

/* The matrix generators' size check, shared by gen_fill and the GPU generator (devgen.c): m is
 * the trailing size, a shape that does not hold n elements and an spd matrix of more than 2^28
 * entries are refused, and the elementwise generators have none. */
static void test_matrix_size(void **state)
{
	const long long batched[3] = { 3, 5, 5 }, huge[2] = { 16385, 16385 }, neg[2] = { -2, -2 };
	struct gen_spec g;
	float one = 0;
	uint64_t m = 7;

	(void)state;
	assert_int_equal(gen_parse("diagdom(1)", &g), KBX_OK);
	assert_int_equal(gen_matrix_size(&g, 75, batched, 3, &m), KBX_OK);
	assert_int_equal(m, 5);
	assert_int_equal(gen_matrix_size(&g, 74, batched, 3, &m), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "shape has 75 elements, buffer 74"));
	assert_int_equal(gen_matrix_size(&g, 4, neg, 2, &m), KBX_EINVAL);
	/* diagdom is elementwise: no bound on a matrix's size */
	assert_int_equal(gen_matrix_size(&g, (size_t)huge[0] * (size_t)huge[1], huge, 2, &m), KBX_OK);
	gen_spec_free(&g);
	assert_int_equal(gen_parse("spd(1)", &g), KBX_OK);
	assert_int_equal(gen_matrix_size(&g, (size_t)huge[0] * (size_t)huge[1], huge, 2, &m), KBX_EINVAL);
	assert_non_null(strstr(kbx_last_error(), "16385 x 16385 is too large"));
	/* gen_fill goes through the same check */
	assert_int_equal(gen_fill(&g, DT_F32, &one, 1, batched, 3, 1), KBX_EINVAL);
	gen_spec_free(&g);
	assert_int_equal(gen_parse("randn", &g), KBX_OK);
	assert_int_equal(gen_matrix_size(&g, 10, NULL, 0, &m), KBX_OK);
	assert_int_equal(m, 0);
	gen_spec_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_each_generator),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_parse_env),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_fill_independent_of_size),
		cmocka_unit_test(test_randn_moments),
		cmocka_unit_test(test_uniform_moments),
		cmocka_unit_test(test_uniform_below_hi),
		cmocka_unit_test(test_randint_range),
		cmocka_unit_test(test_bool_and_outlier),
		cmocka_unit_test(test_values_and_constants),
		cmocka_unit_test(test_special),
		cmocka_unit_test(test_spd),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_diagdom_large),
		cmocka_unit_test(test_spd_f32_symmetric),
		cmocka_unit_test(test_diagdom),
		cmocka_unit_test(test_check_dtype_and_shape),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_matrix_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
