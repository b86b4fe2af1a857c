/*
 * Tests for core/gpuprop.c: the kernels compile (NVRTC, no GPU needed) without a diagnostic; bad
 * sizes are refused before anything runs; and, where a CUDA device is present, the four figures
 * of qr agree with a plain f64 computation on the host (to the rounding of their sums) for near-QR
 * inputs and planted faults: shapes off the 64 tile, a batch, wide and tall matrices, a flipped
 * row sign (diff stays at rounding: the sign is undone), a value below R's diagonal, a wrong R, a
 * non-orthogonal Q, and NaN / inf, which must give a figure that fails any tolerance; and the
 * uniform draws' statistics (counts exactly the host's, moments to rounding, the sample exact),
 * and the eigenvectors' independence (dense_min_pivot's value to rounding, 0 for a zero column).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/dense.h"
#include "core/gpu.h"
#include "core/gpuprop.h"
#include "core/nvrtc.h"

static void compile(int arch, struct nvrtc_output *out)
{
	if (nvrtc_compile(gpuprop_source(), "kbx_gpuprop.cu", arch, NULL, NULL, out))
		fail_msg("nvrtc_compile: %s", kbx_last_error());
	if (!out->ok)
		fail_msg("the property kernels do not compile for sm_%d:\n%s", arch, out->log ? out->log : "");
	for (int i = 0; i < out->ndiags; i++)
		fail_msg("sm_%d: %s line %d: %s", arch, out->diags[i].severity, out->diags[i].line, out->diags[i].message);
}

static void test_compiles(void **state)
{
	struct nvrtc_output out;

	(void)state;
	if (!nvrtc_built())
		skip();
	memset(&out, 0, sizeof(out));
	compile(90, &out);
	assert_true(out.cubin_size > 0);
	nvrtc_output_free(&out);
}

static void test_refuses_bad_sizes(void **state)
{
	struct gpuprop_qr_figures f[1];
	struct gpuprop *fake = (struct gpuprop *)&f;   /* never used: refused before */

	(void)state;
	assert_int_equal(gpuprop_qr(NULL, 1, 1, 1, 1, 1, 4, 4, 4, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 0, 1, 1, 1, 1, 4, 4, 4, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 1, 1, 1, 1, 0, 4, 4, 4, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 1, 1, 1, 1, 1, 0, 4, 4, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 1, 1, 1, 1, 1, 4, 0, 4, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 1, 1, 1, 1, 1, 4, 4, 3, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 1, 1, 1, 1, 1, 1LL << 30, 1LL << 30, 4, 4, f), KBX_EINVAL);
	assert_int_equal(gpuprop_qr(fake, 1, 1, 1, 1, 70000, 4, 4, 4, 4, f), KBX_EINVAL);
	{
		struct gpuprop_uniform u;
		float sample[1];

		assert_int_equal(gpuprop_uniform(NULL, 1, 0, 4, &u), KBX_EINVAL);
		assert_int_equal(gpuprop_uniform(fake, 0, 0, 4, &u), KBX_EINVAL);
		assert_int_equal(gpuprop_uniform(fake, 1, 0, 0, &u), KBX_EINVAL);
		assert_int_equal(gpuprop_gather(NULL, 1, 1, 1, sample), KBX_EINVAL);
		assert_int_equal(gpuprop_gather(fake, 1, 0, 1, sample), KBX_EINVAL);
		assert_int_equal(gpuprop_gather(fake, 1, 1, 0, sample), KBX_EINVAL);
	}
}

/* ---- on a GPU ------------------------------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double urand(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* The figures as verify.c defines them, plainly. */
static void host_figures(const float *A, const float *Q, const float *R, const float *F, long long batch, long long m,
			 long long n, long long k, struct gpuprop_qr_figures *out)
{
	for (long long b = 0; b < batch; b++) {
		const float *a = A + b * m * n, *q = Q + b * m * k, *r = R + b * k * n, *f = F + b * k * n;
		double na = 0, e2 = 0, orth = 0, lower = 0, diff = 0;

		for (long long i = 0; i < m * n; i++)
			na += (double)a[i] * a[i];
		na = sqrt(na);
		if (na == 0)
			na = 1;
		for (long long i = 0; i < m; i++)
			for (long long j = 0; j < n; j++) {
				double s = 0;

				for (long long t = 0; t < k; t++)
					s += (double)q[i * k + t] * r[t * n + j];
				e2 += (s - a[i * n + j]) * (s - a[i * n + j]);
			}
		for (long long i = 0; i < k; i++)
			for (long long j = 0; j < k; j++) {
				double s = 0;

				for (long long t = 0; t < m; t++)
					s += (double)q[t * k + i] * q[t * k + j];
				s = fabs(s - (i == j));
				if (!(s <= orth))
					orth = isnan(s) ? INFINITY : s;
			}
		for (long long i = 0; i < k; i++) {
			long long c = i < n ? i : 0;
			double sgn = (double)r[i * n + c] * f[i * n + c] < 0 ? -1 : 1;

			for (long long j = 0; j < n; j++) {
				double v = r[i * n + j], d = fabs(v - sgn * f[i * n + j]);

				if (j < i && !(fabs(v) <= lower))
					lower = isnan(v) ? INFINITY : fabs(v);
				if (!(d <= diff))
					diff = isnan(d) ? INFINITY : d;
			}
		}
		out[b] = (struct gpuprop_qr_figures){ sqrt(e2) / na, orth, lower / na, diff / na };
	}
}

/* Q [m x k] with orthonormal columns (Gram-Schmidt in f64 of random columns, rounded to f32), R
 * [k x n] upper triangular, A = Q R (rounded), R_ref = R: a factorization to rounding. */
static void make_qr(float *A, float *Q, float *R, float *F, long long m, long long n, long long k)
{
	double *qd = calloc((size_t)(m * k), sizeof(*qd));

	for (long long j = 0; j < k; j++) {
		for (long long i = 0; i < m; i++)
			qd[i * k + j] = urand() - 0.5;
		for (int pass = 0; pass < 2; pass++)
			for (long long p = 0; p < j; p++) {
				double d = 0;

				for (long long i = 0; i < m; i++)
					d += qd[i * k + p] * qd[i * k + j];
				for (long long i = 0; i < m; i++)
					qd[i * k + j] -= d * qd[i * k + p];
			}
		double nn = 0;

		for (long long i = 0; i < m; i++)
			nn += qd[i * k + j] * qd[i * k + j];
		for (long long i = 0; i < m; i++)
			qd[i * k + j] /= sqrt(nn);
	}
	for (long long i = 0; i < m * k; i++)
		Q[i] = (float)qd[i];
	for (long long i = 0; i < k; i++)
		for (long long j = 0; j < n; j++)
			R[i * n + j] = F[i * n + j] = j < i ? 0.0f : (float)(urand() + (i == j));
	for (long long i = 0; i < m; i++)
		for (long long j = 0; j < n; j++) {
			double s = 0;

			for (long long t = 0; t < k; t++)
				s += qd[i * k + t] * R[t * n + j];
			A[i * n + j] = (float)s;
		}
	free(qd);
}

/* The products are summed in other orders (and fused on the GPU): an element of Q R differs by
 * about k ulps of its terms (~1e-14), a figure near rounding (~1e-7) then by ~1e-13 absolutely,
 * a large one by its sums' rounding relatively. NaN and inf must stay not finite. */
static int close_to(double gpu, double host)
{
	if (isinf(host) || isnan(host))
		return isinf(gpu) || isnan(gpu);
	return fabs(gpu - host) <= 1e-11 + 1e-9 * fabs(host);
}

static void test_gpu_matches_host(void **state)
{
	static const long long shapes[][4] = {   /* batch, m, n, k (k = min(m, n) or m: complete) */
		{ 1, 1, 1, 1 }, { 1, 5, 3, 3 }, { 1, 3, 5, 3 }, { 1, 64, 64, 64 }, { 1, 65, 63, 63 },
		{ 2, 70, 40, 40 }, { 1, 40, 70, 40 }, { 1, 30, 20, 30 }, { 3, 17, 17, 17 }, { 1, 200, 130, 130 },
	};
	struct gpu *g = NULL;
	struct gpuprop *gp = NULL;
	struct nvrtc_output out;
	int checked = 0;

	(void)state;
	if (!nvrtc_built() || gpu_open(0, &g) != KBX_OK)
		skip();
	memset(&out, 0, sizeof(out));
	compile(gpu_get_info(g)->cc_major * 10 + gpu_get_info(g)->cc_minor, &out);
	assert_int_equal(gpuprop_open(g, out.cubin, &gp), KBX_OK);
	nvrtc_output_free(&out);
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		long long batch = shapes[si][0], m = shapes[si][1], n = shapes[si][2], k = shapes[si][3];
		size_t na = (size_t)(batch * m * n), nq = (size_t)(batch * m * k), nr = (size_t)(batch * k * n);

		for (int fault = 0; fault < 7; fault++) {
			float *A = malloc(na * 4), *Q = malloc(nq * 4), *R = malloc(nr * 4), *F = malloc(nr * 4);
			struct gpuprop_qr_figures want[3], got[3];
			gpu_ptr da, dq, dr, df;
			long long last = batch - 1;

			for (long long b = 0; b < batch; b++)
				make_qr(A + b * m * n, Q + b * m * k, R + b * k * n, F + b * k * n, m, n, k);
			switch (fault) {
			case 1: /* row 0 of R and column 0 of Q negated: still a QR, the same up to sign */
				for (long long j = 0; j < n; j++)
					R[last * k * n + j] = -R[last * k * n + j];
				for (long long i = 0; i < m; i++)
					Q[last * m * k + i * k] = -Q[last * m * k + i * k];
				break;
			case 2: /* a value below the diagonal */
				R[last * k * n + (k - 1) * n] += k > 1 ? 0.5f : 0.0f;
				break;
			case 3: /* R_ref differs */
				F[last * k * n + (k - 1) * n + n - 1] += 0.25f;
				break;
			case 4: /* Q not orthonormal */
				Q[last * m * k + (m - 1) * k + k - 1] *= 1.5f;
				break;
			case 5:
				Q[last * m * k] = NAN;
				break;
			case 6:
				R[last * k * n + (k - 1) * n + n - 1] = INFINITY;
				break;
			}
			host_figures(A, Q, R, F, batch, m, n, k, want);
			assert_int_equal(gpu_alloc(g, na * 4, &da), KBX_OK);
			assert_int_equal(gpu_alloc(g, nq * 4, &dq), KBX_OK);
			assert_int_equal(gpu_alloc(g, nr * 4, &dr), KBX_OK);
			assert_int_equal(gpu_alloc(g, nr * 4, &df), KBX_OK);
			assert_int_equal(gpu_upload(g, da, A, na * 4), KBX_OK);
			assert_int_equal(gpu_upload(g, dq, Q, nq * 4), KBX_OK);
			assert_int_equal(gpu_upload(g, dr, R, nr * 4), KBX_OK);
			assert_int_equal(gpu_upload(g, df, F, nr * 4), KBX_OK);
			assert_int_equal(gpuprop_qr(gp, da, dq, dr, df, batch, m, n, k, k, got), KBX_OK);
			for (long long b = 0; b < batch; b++) {
				const double *w = &want[b].recon, *o = &got[b].recon;

				for (int f = 0; f < 4; f++)
					if (!close_to(o[f], w[f]))
						fail_msg("batch %lld m %lld n %lld k %lld fault %d matrix %lld figure %d: gpu %.17g host "
							 "%.17g", batch, m, n, k, fault, b, f, o[f], w[f]);
				checked++;
			}
			if (fault >= 2) {   /* each fault shows: some figure of the last matrix is large */
				const double *o = &got[last].recon;

				assert_true(!(o[0] <= 1e-3 && o[1] <= 1e-3 && o[2] <= 1e-3 && o[3] <= 1e-3) || (fault == 2 && k == 1));
			} else {
				assert_true(got[last].recon < 1e-5 && got[last].orth < 1e-5 && got[last].lower < 1e-5 &&
					    got[last].diff < 1e-5);
			}
			gpu_free(g, da);
			gpu_free(g, dq);
			gpu_free(g, dr);
			gpu_free(g, df);
			free(A);
			free(Q);
			free(R);
			free(F);
		}
	}
	printf("# %d matrices' figures equal the host's\n", checked);
	gpuprop_close(gp);
	gpu_close(g);
}

/* The uniform draws' statistics: counts equal to the host's, moments to rounding, the sample
 * exact; sizes off the block, values outside [0, 1) (NaN, 1, -0.5, inf), a partial difference. */
static void test_uniform_matches_host(void **state)
{
	static const long long sizes[] = { 1, 2, 255, 257, 100003, (1LL << 22) + 3 };
	struct gpu *g = NULL;
	struct gpuprop *gp = NULL;
	struct nvrtc_output out;

	(void)state;
	if (!nvrtc_built() || gpu_open(0, &g) != KBX_OK)
		skip();
	memset(&out, 0, sizeof(out));
	compile(gpu_get_info(g)->cc_major * 10 + gpu_get_info(g)->cc_minor, &out);
	assert_int_equal(gpuprop_open(g, out.cubin, &gp), KBX_OK);
	nvrtc_output_free(&out);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		long long n = sizes[si], stride = n > 1000 ? 7 : 1, count = (n + stride - 1) / stride;
		float *a = malloc((size_t)n * 4), *o = malloc((size_t)n * 4), *sample = malloc((size_t)count * 4);
		unsigned long long outside = 0, differ = 0;
		double mean = 0, var = 0;
		struct gpuprop_uniform u, none;
		gpu_ptr da, dob;

		for (long long i = 0; i < n; i++) {
			a[i] = (float)urand();
			o[i] = i % 3 ? (float)urand() : a[i];
		}
		if (n > 300) {
			a[5] = NAN, a[17] = 1.0f, a[99] = -0.5f, a[n - 1] = INFINITY;
			o[5] = NAN;   /* NaN != NaN: a difference, as on the host */
		}
		for (long long i = 0; i < n; i++) {
			double x = a[i];

			outside += !(x >= 0 && x < 1);
			differ += (double)o[i] != x;
			mean += x;
		}
		mean /= (double)n;
		for (long long i = 0; i < n; i++)
			var += ((double)a[i] - mean) * ((double)a[i] - mean);
		var /= n > 1 ? (double)(n - 1) : 1.0;
		assert_int_equal(gpu_alloc(g, (size_t)n * 4, &da), KBX_OK);
		assert_int_equal(gpu_alloc(g, (size_t)n * 4, &dob), KBX_OK);
		assert_int_equal(gpu_upload(g, da, a, (size_t)n * 4), KBX_OK);
		assert_int_equal(gpu_upload(g, dob, o, (size_t)n * 4), KBX_OK);
		assert_int_equal(gpuprop_uniform(gp, da, dob, n, &u), KBX_OK);
		assert_int_equal(gpuprop_uniform(gp, da, 0, n, &none), KBX_OK);
		assert_int_equal(u.outside, outside);
		assert_int_equal(u.differ, differ);
		assert_int_equal(none.differ, 0);
		if (n > 300) {
			assert_true(isnan(u.mean) && isnan(u.var));
		} else {
			assert_true(fabs(u.mean - mean) <= 1e-12 * fabs(mean));
			assert_true(fabs(u.var - var) <= 1e-10 * fabs(var) + 1e-15);
		}
		assert_int_equal(gpuprop_gather(gp, da, stride, count, sample), KBX_OK);
		for (long long i = 0; i < count; i++)
			assert_memory_equal(&sample[i], &a[i * stride], 4);
		gpu_free(g, da);
		gpu_free(g, dob);
		free(a);
		free(o);
		free(sample);
	}
	gpuprop_close(gp);
	gpu_close(g);
}

/* The eigenvectors' independence (dense_min_pivot) on the device against the host's: random
 * complex matrices of orders off the block, a repeated column (near 0 both ways) and a zero
 * column (0 exactly), in the c64 row-major layout the eig task's vectors have. */
static void test_min_pivot_matches_host(void **state)
{
	static const long long orders[] = { 1, 2, 5, 64, 130, 300 };
	struct gpu *g = NULL;
	struct gpuprop *gp = NULL;
	struct nvrtc_output out;
	double got;

	(void)state;
	assert_int_equal(gpuprop_min_pivot(NULL, 1, 4, &got), KBX_EINVAL);
	if (!nvrtc_built() || gpu_open(0, &g) != KBX_OK)
		skip();
	memset(&out, 0, sizeof(out));
	compile(gpu_get_info(g)->cc_major * 10 + gpu_get_info(g)->cc_minor, &out);
	assert_int_equal(gpuprop_open(g, out.cubin, &gp), KBX_OK);
	nvrtc_output_free(&out);
	assert_int_equal(gpuprop_min_pivot(gp, 1, 0, &got), KBX_OK);
	assert_true(got == 1);
	for (size_t oi = 0; oi < sizeof(orders) / sizeof(orders[0]); oi++) {
		for (int kind = 0; kind < 3; kind++) {
			long long n = orders[oi];
			float *v = malloc((size_t)(n * n) * 2 * sizeof(float));
			double *re = malloc((size_t)(n * n) * sizeof(double)), *im = malloc((size_t)(n * n) * sizeof(double));
			double want;
			gpu_ptr dv;

			if (kind && n < 2) {
				free(v), free(re), free(im);
				continue;
			}
			for (long long e = 0; e < n * n; e++) {
				v[2 * e] = (float)(urand() - 0.5);
				v[2 * e + 1] = (float)(urand() - 0.5);
			}
			for (long long i = 0; i < n; i++) {
				if (kind == 1) {   /* column n - 1 repeats column 0 */
					v[2 * (i * n + n - 1)] = v[2 * (i * n)];
					v[2 * (i * n + n - 1) + 1] = v[2 * (i * n) + 1];
				} else if (kind == 2) {   /* column 1 is zero */
					v[2 * (i * n + 1)] = v[2 * (i * n + 1) + 1] = 0;
				}
			}
			for (long long i = 0; i < n; i++)
				for (long long j = 0; j < n; j++) {
					re[j * n + i] = v[2 * (i * n + j)];
					im[j * n + i] = v[2 * (i * n + j) + 1];
				}
			want = dense_min_pivot(re, im, n);
			assert_int_equal(gpu_alloc(g, (size_t)(n * n) * 2 * sizeof(float), &dv), KBX_OK);
			assert_int_equal(gpu_upload(g, dv, v, (size_t)(n * n) * 2 * sizeof(float)), KBX_OK);
			assert_int_equal(gpuprop_min_pivot(gp, dv, n, &got), KBX_OK);
			if (kind == 1)
				assert_true(want < 1e-6 && got < 1e-6);
			else if (kind == 2)
				assert_true(want == 0 && got == 0);
			else if (!(fabs(got - want) <= 1e-9 * want))
				fail_msg("order %lld: gpu %.17g host %.17g", n, got, want);
			gpu_free(g, dv);
			free(v);
			free(re);
			free(im);
		}
	}
	gpuprop_close(gp);
	gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiles),
		cmocka_unit_test(test_refuses_bad_sizes),
		cmocka_unit_test(test_gpu_matches_host),
		cmocka_unit_test(test_uniform_matches_host),
		cmocka_unit_test(test_min_pivot_matches_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
