/* lens_sim.c - kbx's verdict and quantization-lens diagnosis for four Quantization tasks and a
 * few modelled candidates, without a GPU: kbx's own task loader, derived cases, input generator,
 * comparison and lens (libkbxcore.a), the kernels modelled in f32 C (fmaf where nvcc contracts;
 * built with -ffp-contract=off). Checked against the H200 (2026-12-02): the first failing case
 * and its diagnosis of matmul_w8a8's and bmm_w8a8's per-tensor examples, bmm_w8a8's per-batch
 * one, layernorm_w8a8's per-tensor and truncating ones, and conv2d_w8a8's per-tensor weight
 * scale, weight scale axis and truncating ones came out digit for digit as kbx printed them
 * there (the GEMMs' and conv2d's truncating ones with the lens of then, before its magnitude
 * rule; tests/core/lens_sim.sh holds them). conv2d's lines rest on the scales, the rounding and
 * the inputs: its epilogue with or without fmaf moves no lens figure, only the verdict's last
 * digits. For trying a change to core/quant.c on realistic errors before it reaches a GPU.
 *
 * usage: bench/lens_sim TASK CAND [SEED] [CASE]   (KBX_TASKS: the catalogue, default ./tasks)
 *   TASK: layernorm_w8a8 | bmm_w8a8 | matmul_w8a8 | conv2d_w8a8
 *   CAND: ref | per_tensor | trunc | per_batch_input (bmm) | weight_axis (conv2d)
 *         (conv2d's per_tensor: one weight scale for the tensor, wrong_per_tensor_weight_scale.cu;
 *         weight_axis: one per input channel, wrong_weight_scale_axis.cu)
 * One line per case (its verdict against the reference, and against the exact result where that
 * decides), then the lens's diagnosis. SIM_VERBOSE=1, SIM_ALT=1 (layernorm's affine step without
 * FMA) and SIM_DUMP=DIR (cand/ref/exact/step as f64) for digging.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compare.h"
#include "core/derive.h"
#include "core/dtype.h"
#include "core/inputs.h"
#include "core/problem.h"
#include "core/quant.h"
#include "core/task.h"

/* ---------------------------------------------------------------- helpers */

/* xor butterfly over 32 lanes; every lane ends equal (fadd commutes): lane 0's value */
static float warp_sum(const float *v)
{
	float a[32], b[32];
	memcpy(a, v, sizeof(a));
	for (int off = 16; off > 0; off >>= 1) {
		for (int i = 0; i < 32; i++)
			b[i] = a[i] + a[i ^ off];
		memcpy(a, b, sizeof(a));
	}
	return a[0];
}

static double tie_min = 1e9; static double tie_q;
static void tie_note(float q)
{
	double f = fabs(fabs((double)q - floor((double)q) - 0.5) / (fabs((double)q) + 1e-30));
	if (fabs(q) < 127.5 && f < tie_min) { tie_min = f; tie_q = q; }
}
static float qd(float z, float scale, int trunc)
{
	if (!(scale > 0.0f))
		return 0.0f;
	float q = z / scale;
	tie_note(q);
	q = trunc ? truncf(q) : rintf(q);
	return fminf(fmaxf(q, -127.0f), 127.0f) * scale;
}

static int q8_trunc;     /* the GEMMs' trunc candidate: v / scale truncated toward zero */

static int q8(float v, float scale)
{
	if (!(scale > 0.0f))
		return 0;
	return (int)fminf(fmaxf(q8_trunc ? truncf(v / scale) : rintf(v / scale), -127.0f), 127.0f);
}

/* ---------------------------------------------------------------- layernorm */

static int alt_mode;
static float affine(float x, float mean, float rstd, float w, float b)
{
	if (alt_mode) {
		volatile float p = (x - mean) * rstd * w;
		return p + b;
	}
	return fmaf((x - mean) * rstd, w, b);
}

/* reference layernorm_q8 (trunc = 1: wrong_truncating_rounding) */
static void ln_ref(const float *x, const float *w, const float *bb, float *y, float *ysc, long long rows,
		   long long d, float eps, int trunc)
{
	for (long long row = 0; row < rows; row++) {
		const float *xr = x + row * d;
		float part[256], sh[8];
		int vec = (d & 3) == 0;
		long long d4 = d / 4;

		for (int t = 0; t < 256; t++) {
			float s = 0;
			if (vec)
				for (long long i = t; i < d4; i += 256)
					s = s + ((xr[4 * i] + xr[4 * i + 1]) + (xr[4 * i + 2] + xr[4 * i + 3]));
			else
				for (long long i = t; i < d; i += 256)
					s = s + xr[i];
			part[t] = s;
		}
		for (int wv = 0; wv < 8; wv++)
			sh[wv] = warp_sum(part + 32 * wv);
		float tot = 0;
		for (int wv = 0; wv < 8; wv++)
			tot = tot + sh[wv];
		const float mean = tot / (float)d;
		for (int t = 0; t < 256; t++) {
			float ss = 0;
			if (vec)
				for (long long i = t; i < d4; i += 256) {
					float a = xr[4 * i] - mean, b = xr[4 * i + 1] - mean, c = xr[4 * i + 2] - mean,
					      e = xr[4 * i + 3] - mean;
					ss = ss + (fmaf(a, a, b * b) + fmaf(c, c, e * e));
				}
			else
				for (long long i = t; i < d; i += 256) {
					float a = xr[i] - mean;
					ss = fmaf(a, a, ss);
				}
			part[t] = ss;
		}
		for (int wv = 0; wv < 8; wv++)
			sh[wv] = warp_sum(part + 32 * wv);
		tot = 0;
		for (int wv = 0; wv < 8; wv++)
			tot = tot + sh[wv];
		const float var = tot / (float)d;
		const float rstd = 1.0f / sqrtf(var + eps);
		float amax = 0;
		for (long long i = 0; i < d; i++)
			amax = fmaxf(amax, fabsf(affine(xr[i], mean, rstd, w[i], bb[i])));
		const float scale = amax / 127.0f;
		ysc[row] = scale;
		for (long long i = 0; i < d; i++)
			y[row * d + i] = qd(affine(xr[i], mean, rstd, w[i], bb[i]), scale, trunc);
	}
}

/* kbx/layernorm_exact.h */
static void ln_exact(const float *x, const float *w, const float *bb, float *y, long long rows, long long d, float eps)
{
	for (long long row = 0; row < rows; row++) {
		const float *xr = x + row * d;
		float lane[32];
		for (int l = 0; l < 32; l++) {
			float s = 0;
			for (long long i = l; i < d; i += 32)
				s = s + xr[i];
			lane[l] = s;
		}
		const float mean = warp_sum(lane) / (float)d;
		for (int l = 0; l < 32; l++) {
			float ss = 0;
			for (long long i = l; i < d; i += 32) {
				float a = xr[i] - mean;
				ss = fmaf(a, a, ss);
			}
			lane[l] = ss;
		}
		const float rstd = 1.0f / sqrtf(warp_sum(lane) / (float)d + eps);
		for (long long i = 0; i < d; i++)
			y[row * d + i] = affine(xr[i], mean, rstd, w[i], bb[i]);
	}
}

/* examples/wrong_per_tensor_scale.cu */
static void ln_per_tensor(const float *x, const float *w, const float *bb, float *y, long long rows, long long d,
			  float eps)
{
	float tamax = 0;
	for (long long row = 0; row < rows; row++) {
		const float *xr = x + row * d;
		float part[256], sh[8];
		for (int t = 0; t < 256; t++) {
			float s = 0;
			for (long long i = t; i < d; i += 256)
				s = s + xr[i];
			part[t] = s;
		}
		for (int wv = 0; wv < 8; wv++)
			sh[wv] = warp_sum(part + 32 * wv);
		float v = sh[0];
		for (int wv = 1; wv < 8; wv++)
			v = v + sh[wv];
		const float mean = v / (float)d;
		for (int t = 0; t < 256; t++) {
			float ss = 0;
			for (long long i = t; i < d; i += 256) {
				float a = xr[i] - mean;
				ss = fmaf(a, a, ss);
			}
			part[t] = ss;
		}
		for (int wv = 0; wv < 8; wv++)
			sh[wv] = warp_sum(part + 32 * wv);
		v = sh[0];
		for (int wv = 1; wv < 8; wv++)
			v = v + sh[wv];
		const float rstd = 1.0f / sqrtf(v / (float)d + eps);
		float amax = 0;
		for (long long i = 0; i < d; i++) {
			float z = affine(xr[i], mean, rstd, w[i], bb[i]);
			y[row * d + i] = z;
			amax = fmaxf(amax, fabsf(z));
		}
		tamax = fmaxf(tamax, amax);
	}
	const float scale = tamax / 127.0f;
	for (long long i = 0; i < rows * d; i++)
	{ if (scale > 0.0f) tie_note(y[i] / scale);
		y[i] = scale > 0.0f ? fminf(fmaxf(rintf(y[i] / scale), -127.0f), 127.0f) * scale : 0.0f; }
}

/* ---------------------------------------------------------------- bmm / matmul */

/* reference: per (batch,row) sx, per (batch,col) sw; per_batch_input: sx per batch over m*k */
static void bmm_ref(const float *x, const float *w, float *y, float *sx, float *sw, long long B, long long m,
		    long long k, long long n, int per_batch_input)
{
	int *xq = malloc(sizeof(int) * (size_t)(B * m * k + 1)), *wq = malloc(sizeof(int) * (size_t)(B * k * n + 1));
	for (long long b = 0; b < B; b++) {
		for (long long i = 0; i < m; i++) {
			float amax = 0;
			if (per_batch_input)
				for (long long j = 0; j < m * k; j++)
					amax = fmaxf(amax, fabsf(x[b * m * k + j]));
			else
				for (long long j = 0; j < k; j++)
					amax = fmaxf(amax, fabsf(x[(b * m + i) * k + j]));
			float s = amax / 127.0f;
			sx[b * m + i] = s;
			for (long long j = 0; j < k; j++)
				xq[(b * m + i) * k + j] = q8(x[(b * m + i) * k + j], s);
		}
		for (long long j = 0; j < n; j++) {
			float amax = 0;
			for (long long i = 0; i < k; i++)
				amax = fmaxf(amax, fabsf(w[(b * k + i) * n + j]));
			float s = amax / 127.0f;
			sw[b * n + j] = s;
			for (long long i = 0; i < k; i++)
				wq[(b * k + i) * n + j] = q8(w[(b * k + i) * n + j], s);
		}
		for (long long i = 0; i < m; i++)
			for (long long j = 0; j < n; j++) {
				long long acc = 0;
				for (long long kk = 0; kk < k; kk++)
					acc += (long long)xq[(b * m + i) * k + kk] * wq[(b * k + kk) * n + j];
				y[(b * m + i) * n + j] = (float)(int)acc * sx[b * m + i] * sw[b * n + j];
			}
	}
	free(xq);
	free(wq);
}

static void bmm_per_tensor(const float *x, const float *w, float *y, long long B, long long m, long long k,
			   long long n)
{
	float a = 0, c = 0;
	for (long long i = 0; i < B * m * k; i++)
		a = fmaxf(a, fabsf(x[i]));
	for (long long i = 0; i < B * k * n; i++)
		c = fmaxf(c, fabsf(w[i]));
	const float sx = a / 127.0f, sw = c / 127.0f;
	for (long long b = 0; b < B; b++)
		for (long long i = 0; i < m; i++)
			for (long long j = 0; j < n; j++) {
				long long acc = 0;
				for (long long kk = 0; kk < k; kk++)
					acc += (long long)q8(x[(b * m + i) * k + kk], sx) * q8(w[(b * k + kk) * n + j], sw);
				y[(b * m + i) * n + j] = (float)(int)acc * sx * sw;
			}
}

/* kbx/gemm_exact.h: sequential fmaf over k */
static void gemm_exact(const float *x, const float *w, float *y, long long B, long long m, long long k, long long n)
{
	for (long long b = 0; b < B; b++)
		for (long long i = 0; i < m; i++)
			for (long long j = 0; j < n; j++) {
				float acc = 0;
				for (long long kk = 0; kk < k; kk++)
					acc = fmaf(x[(b * m + i) * k + kk], w[(b * k + kk) * n + j], acc);
				y[(b * m + i) * n + j] = acc;
			}
}

/* ---------------------------------------------------------------- conv2d */

/* conv2d_w8a8's case: NCHW, one stride and one zero padding for both spatial dims, ho x wo out. */
struct conv {
	long long nb, cin, h, w, cout, kh, kw, stride, pad, ho, wo;
	int has_bias;
};

/* The int32 sum of one output element over (ci, ky, kx), padding read as 0; ci_only >= 0 sums that
 * input channel alone (wrong_weight_scale_axis). Integer sums are exact: the order is free. */
static int conv_acc(const struct conv *c, const int *xq, const int *wq, long long n, long long co, long long oy,
		    long long ox, long long ci_only)
{
	int acc = 0;
	for (long long ci = ci_only < 0 ? 0 : ci_only; ci < (ci_only < 0 ? c->cin : ci_only + 1); ci++)
		for (long long ky = 0; ky < c->kh; ky++) {
			const long long iy = oy * c->stride - c->pad + ky;
			if (iy < 0 || iy >= c->h)
				continue;
			for (long long kx = 0; kx < c->kw; kx++) {
				const long long ix = ox * c->stride - c->pad + kx;
				if (ix >= 0 && ix < c->w)
					acc += xq[((n * c->cin + ci) * c->h + iy) * c->w + ix] *
					       wq[((co * c->cin + ci) * c->kh + ky) * c->kw + kx];
			}
		}
	return acc;
}

enum conv_cand { CONV_REF, CONV_TRUNC, CONV_PER_TENSOR, CONV_WEIGHT_AXIS };

/* reference.cu and its wrong examples. sx = max |input| / 127 in all four (a max is exact in any
 * order); the weight scales: per output channel (ref, trunc: quant_weight), one for the tensor
 * (per_tensor: two_absmax), per input channel (weight_axis: quant_weight_in). The epilogue
 * y = acc * sx * sw + b is contracted by nvcc to fmaf(acc * sx, sw, b), b = 0 without bias (ref,
 * trunc, per_tensor); weight_axis sums fmaf(acc_ci, sw[ci], sum) over ci, then fmaf(sum, sx, b).
 * sx, sw: the scales the kernel keeps (x_scale, w_scale of the reference). */
static void conv_q8(const struct conv *c, const float *x, const float *w, const float *bias, float *y, float *sx,
		    float *sw, enum conv_cand cand)
{
	const long long nx = c->nb * c->cin * c->h * c->w, nw = c->cout * c->cin * c->kh * c->kw;
	const long long khw = c->kh * c->kw, kdim = c->cin * khw;
	int *xq = malloc(sizeof(int) * (size_t)(nx + 1)), *wq = malloc(sizeof(int) * (size_t)(nw + 1));
	float amax = 0, *swi = calloc((size_t)c->cin + 1, sizeof(float)), swt = 0;

	q8_trunc = cand == CONV_TRUNC;
	for (long long i = 0; i < nx; i++)
		amax = fmaxf(amax, fabsf(x[i]));
	*sx = amax / 127.0f;
	for (long long i = 0; i < nx; i++)
		xq[i] = q8(x[i], *sx);
	if (cand == CONV_PER_TENSOR) {
		amax = 0;
		for (long long i = 0; i < nw; i++)
			amax = fmaxf(amax, fabsf(w[i]));
		swt = amax / 127.0f;
		for (long long i = 0; i < nw; i++)
			wq[i] = q8(w[i], swt);
	} else if (cand == CONV_WEIGHT_AXIS) {
		for (long long ci = 0; ci < c->cin; ci++) {
			amax = 0;
			for (long long co = 0; co < c->cout; co++)
				for (long long t = 0; t < khw; t++)
					amax = fmaxf(amax, fabsf(w[(co * c->cin + ci) * khw + t]));
			swi[ci] = amax / 127.0f;
			for (long long co = 0; co < c->cout; co++)
				for (long long t = 0; t < khw; t++)
					wq[(co * c->cin + ci) * khw + t] = q8(w[(co * c->cin + ci) * khw + t], swi[ci]);
		}
	}
	if (cand == CONV_REF || cand == CONV_TRUNC)
		for (long long co = 0; co < c->cout; co++) {
			amax = 0;
			for (long long i = 0; i < kdim; i++)
				amax = fmaxf(amax, fabsf(w[co * kdim + i]));
			sw[co] = amax / 127.0f;
			for (long long i = 0; i < kdim; i++)
				wq[co * kdim + i] = q8(w[co * kdim + i], sw[co]);
		}
	q8_trunc = 0;
	for (long long n = 0; n < c->nb; n++)
		for (long long co = 0; co < c->cout; co++) {
			const float b = c->has_bias ? bias[co] : 0.0f;
			for (long long oy = 0; oy < c->ho; oy++)
				for (long long ox = 0; ox < c->wo; ox++) {
					float *out = &y[((n * c->cout + co) * c->ho + oy) * c->wo + ox];
					if (cand == CONV_WEIGHT_AXIS) {
						float sum = 0.0f;
						for (long long ci = 0; ci < c->cin; ci++)
							sum = fmaf((float)conv_acc(c, xq, wq, n, co, oy, ox, ci), swi[ci], sum);
						*out = fmaf(sum, *sx, b);
					} else {
						const float s = cand == CONV_PER_TENSOR ? swt : sw[co];
						*out = fmaf((float)conv_acc(c, xq, wq, n, co, oy, ox, -1) * *sx, s, b);
					}
				}
		}
	free(xq);
	free(wq);
	free(swi);
}

/* kbx/conv_exact.h: sequential fmaf over (ci, ky, kx), then the bias added */
static void conv_exact(const struct conv *c, const float *x, const float *w, const float *bias, float *y)
{
	for (long long n = 0; n < c->nb; n++)
		for (long long co = 0; co < c->cout; co++)
			for (long long oy = 0; oy < c->ho; oy++)
				for (long long ox = 0; ox < c->wo; ox++) {
					float acc = 0.0f;
					for (long long ci = 0; ci < c->cin; ci++)
						for (long long ky = 0; ky < c->kh; ky++) {
							const long long iy = oy * c->stride - c->pad + ky;
							if (iy < 0 || iy >= c->h)
								continue;
							for (long long kx = 0; kx < c->kw; kx++) {
								const long long ix = ox * c->stride - c->pad + kx;
								if (ix >= 0 && ix < c->w)
									acc = fmaf(x[((n * c->cin + ci) * c->h + iy) * c->w + ix],
										   w[((co * c->cin + ci) * c->kh + ky) * c->kw + kx], acc);
							}
						}
					y[((n * c->cout + co) * c->ho + oy) * c->wo + ox] = acc + (c->has_bias ? bias[co] : 0.0f);
				}
}

/* ---------------------------------------------------------------- driver */

static double env_get(const struct problem *pb, const char *name)
{
	const struct expr_value *v = expr_env_get(&pb->env, name);
	if (!v) {
		fprintf(stderr, "no binding %s\n", name);
		exit(1);
	}
	return v->is_float ? v->f : (double)v->i;
}

static const struct problem_buf *buf_of(const struct problem *pb, const char *name)
{
	for (int i = 0; i < pb->nbufs; i++)
		if (!strcmp(pb->bufs[i].arg->name, name))
			return &pb->bufs[i];
	fprintf(stderr, "no buffer %s\n", name);
	exit(1);
}

static float *draw(const struct task *t, const struct problem *pb, const char *key_name, const char *arg,
		   unsigned long long seed)
{
	const struct problem_buf *b = buf_of(pb, arg);
	struct gen_spec g;
	float *h = calloc(b->numel + 1, sizeof(float));

	if (gen_parse(b->gen, &g) ||
	    gen_fill(&g, b->arg->dtype, h, b->numel, b->shape, b->ndim, gen_key(seed, t->id, key_name, b->arg->name))) {
		fprintf(stderr, "gen: %s\n", kbx_last_error());
		exit(1);
	}
	gen_spec_free(&g);
	return h;
}

/* judge_against_exact of engine_verify.c */
static int judge_exact(const struct problem_buf *b, const struct tolerance *ctol, const float *cand, const float *ref,
		       const float *exact, struct cmp_result *ex, struct cmp_result *rx)
{
	struct tolerance tol = *ctol;
	double scale = tol.atol_scale > 0 ? tol.atol_scale : 1;

	compare_buffers(DT_F32, ref, exact, b->shape, b->ndim, ctol, rx);
	if (tol.cosine_sim >= 0 && rx->cosine < tol.cosine_sim)
		tol.cosine_sim = rx->cosine;
	if (tol.l1_relative >= 0 && rx->l1_relative > tol.l1_relative)
		tol.l1_relative = rx->l1_relative;
	if (tol.rmse >= 0 && rx->rmse / scale > tol.rmse)
		tol.rmse = rx->rmse / scale;
	compare_buffers(DT_F32, cand, exact, b->shape, b->ndim, &tol, ex);
	return ex->pass;
}

/* copy of quant.c follow_fit, to print margins */
static FILE *vb;
static void follow_print(const char *what, const double *cand, const double *ref, const double *exact, const double *step,
			 const size_t *shape, int ndim, const int *axes, int naxes)
{
	size_t n = 1, nent = 1, coord[16] = { 0 };
	for (int d = 0; d < ndim; d++) n *= shape[d];
	for (int i = 0; i < naxes; i++) nent *= shape[axes[i]];
	double *ls = calloc(nent, 8), *cx = calloc(nent, 8), *rx = calloc(nent, 8);
	long *cnt = calloc(nent, sizeof(long));
	for (size_t e = 0; e < n; e++) {
		size_t idx = 0;
		for (int i = 0; i < naxes; i++) idx = idx * shape[axes[i]] + coord[axes[i]];
		if (isfinite(cand[e]) && isfinite(ref[e]) && step[e] > 0) {
			ls[idx] += log(step[e]); cx[idx] += fabs(cand[e] - exact[e]); rx[idx] += fabs(ref[e] - exact[e]); cnt[idx]++;
		}
		for (int d = ndim - 1; d >= 0; d--) { if (++coord[d] < shape[d]) break; coord[d] = 0; }
	}
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0; int k = 0;
	for (size_t i = 0; i < nent; i++) {
		if (!cnt[i] || !(cx[i] > 0) || !(rx[i] > 0)) continue;
		double x = ls[i] / cnt[i], y = log(cx[i] / rx[i]);
		sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y; k++;
	}
	if (k < 4) { fprintf(vb, "    follow %s: %d entries (<4)\n", what, k); goto out; }
	double m = k, vx = sxx / m - (sx / m) * (sx / m);
	if (!(vx > 0.0004)) { fprintf(vb, "    follow %s: log-step sd %.4g (< 0.02)\n", what, sqrt(vx > 0 ? vx : 0)); goto out; }
	double b = (sxy / m - (sx / m) * (sy / m)) / vx, res = (syy / m - (sy / m) * (sy / m)) - b * b * vx;
	double se = sqrt((res > 0 ? res : 0) / (vx * m));
	fprintf(vb, "    follow %s: slope %.4f se %.4f over %d: slope+3se %.4f -> %s\n", what, b, se, k, b + 3 * se,
	       (b <= -0.3 && b + 3 * se < 0) ? "NOT following" : "following");
out:
	free(ls); free(cx); free(rx); free(cnt);
}

int main(int argc, char **argv)
{
	const char *tname = argc > 1 ? argv[1] : "", *cand_name = argc > 2 ? argv[2] : "";
	unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
	const char *only = argc > 4 ? argv[4] : NULL;
	struct task *t;
	struct task_case *extra = NULL;
	int nextra = 0;

	alt_mode = getenv("SIM_ALT") != NULL;
	if (argc < 3) {
		fprintf(stderr, "usage: lens_sim TASK CAND [SEED] [CASE]\n");
		return 2;
	}
	if (task_load(getenv("KBX_TASKS") ? getenv("KBX_TASKS") : "tasks", "Quantization", tname, &t)) {
		fprintf(stderr, "task_load: %s\n", kbx_last_error());
		return 1;
	}
	if (derive_auto(t, &extra, &nextra)) {
		fprintf(stderr, "derive: %s\n", kbx_last_error());
		return 1;
	}
	for (int ci = 0; ci < t->ncases + nextra; ci++) {
		const struct task_case *tc = ci < t->ncases ? &t->cases[ci] : &extra[ci - t->ncases];
		struct problem pb;
		struct tolerance tol = t->tol;
		int islayer = !strcmp(tname, "layernorm_w8a8");
		const char *wname = !strcmp(tname, "bmm_w8a8") ? "mat2" : "weight";

		if (only && strcmp(only, tc->name))
			continue;
		if (tc->atol_scale > 0)
			tol.atol_scale = tc->atol_scale;
		if (problem_from_case_spec(t, tc, &pb)) {
			fprintf(stderr, "problem: %s\n", kbx_last_error());
			return 1;
		}
		const struct problem_buf *yb = buf_of(&pb, "y");
		size_t ny = yb->numel;
		float *ref = calloc(ny + 1, 4), *cand = calloc(ny + 1, 4), *exact = calloc(ny + 1, 4);
		struct quant_scale sc[2];
		int nsc = 0;
		double *s0 = NULL, *s1 = NULL;

		if (!strcmp(tname, "conv2d_w8a8")) {
			struct conv c = { (long long)env_get(&pb, "nb"), (long long)env_get(&pb, "cin"),
					  (long long)env_get(&pb, "h"), (long long)env_get(&pb, "w"),
					  (long long)env_get(&pb, "cout"), (long long)env_get(&pb, "kh"),
					  (long long)env_get(&pb, "kw"), (long long)env_get(&pb, "stride"),
					  (long long)env_get(&pb, "padding"), 0, 0, (int)env_get(&pb, "has_bias") };
			static const char *const names[] = { "ref", "trunc", "per_tensor", "weight_axis" };
			int cand_i = -1;
			c.ho = (c.h + 2 * c.pad - c.kh) / c.stride + 1;
			c.wo = (c.w + 2 * c.pad - c.kw) / c.stride + 1;
			for (int i = 0; i < 4; i++)
				if (!strcmp(cand_name, names[i]))
					cand_i = i;
			if (cand_i < 0) {
				fprintf(stderr, "cand?\n");
				return 1;
			}
			float *x = draw(t, &pb, tc->name, "input", seed), *w = draw(t, &pb, tc->name, "weight", seed),
			      *bb = draw(t, &pb, tc->name, "bias", seed);
			float sx, csx, *sw = calloc((size_t)c.cout + 1, 4), *csw = calloc((size_t)c.cout + 1, 4);

			conv_q8(&c, x, w, bb, ref, &sx, sw, CONV_REF);
			conv_q8(&c, x, w, bb, cand, &csx, csw, (enum conv_cand)cand_i);
			conv_exact(&c, x, w, bb, exact);
			/* the reference's scratch x_scale [1] and w_scale [cout], as the [quant] step names them */
			s0 = calloc(1, sizeof(double));
			s1 = calloc((size_t)c.cout + 1, sizeof(double));
			s0[0] = sx;
			for (long long i = 0; i < c.cout; i++)
				s1[i] = sw[i];
			sc[nsc++] = (struct quant_scale){ "x_scale", s0, 1 };
			sc[nsc++] = (struct quant_scale){ "w_scale", s1, (size_t)c.cout };
			free(x);
			free(w);
			free(bb);
			free(sw);
			free(csw);
		} else if (islayer) {
			long long rows = (long long)env_get(&pb, "rows"), d = (long long)env_get(&pb, "d");
			float eps = (float)env_get(&pb, "eps");
			float *x = draw(t, &pb, tc->name, "input", seed), *w = draw(t, &pb, tc->name, "weight", seed),
			      *bb = draw(t, &pb, tc->name, "bias", seed);
			float *ysc = calloc((size_t)rows + 1, 4);

			ln_ref(x, w, bb, ref, ysc, rows, d, eps, 0);
			ln_exact(x, w, bb, exact, rows, d, eps);
			if (!strcmp(cand_name, "ref")) {
				float *tmp = calloc((size_t)rows + 1, 4);
				ln_ref(x, w, bb, cand, tmp, rows, d, eps, 0);
				free(tmp);
			} else if (!strcmp(cand_name, "trunc")) {
				float *tmp = calloc((size_t)rows + 1, 4);
				ln_ref(x, w, bb, cand, tmp, rows, d, eps, 1);
				free(tmp);
			} else if (!strcmp(cand_name, "per_tensor")) {
				ln_per_tensor(x, w, bb, cand, rows, d, eps);
			} else {
				fprintf(stderr, "cand?\n");
				return 1;
			}
			s0 = calloc((size_t)rows + 1, sizeof(double));
			for (long long i = 0; i < rows; i++)
				s0[i] = ysc[i];
			sc[nsc++] = (struct quant_scale){ "y_scale", s0, (size_t)rows };
			free(x);
			free(w);
			free(bb);
			free(ysc);
		} else {
			int bmm = !strcmp(tname, "bmm_w8a8");
			long long B = bmm ? (long long)env_get(&pb, "b") : 1, m = (long long)env_get(&pb, "m"),
				  k = (long long)env_get(&pb, "k"), n = (long long)env_get(&pb, "n");
			float *x = draw(t, &pb, tc->name, "input", seed), *w = draw(t, &pb, tc->name, wname, seed);
			float *sx = calloc((size_t)(B * m) + 1, 4), *sw = calloc((size_t)(B * n) + 1, 4);

			bmm_ref(x, w, ref, sx, sw, B, m, k, n, 0);
			gemm_exact(x, w, exact, B, m, k, n);
			if (!strcmp(cand_name, "ref")) {
				float *a = calloc((size_t)(B * m) + 1, 4), *c = calloc((size_t)(B * n) + 1, 4);
				bmm_ref(x, w, cand, a, c, B, m, k, n, 0);
				free(a);
				free(c);
			} else if (!strcmp(cand_name, "per_batch_input")) {
				float *a = calloc((size_t)(B * m) + 1, 4), *c = calloc((size_t)(B * n) + 1, 4);
				bmm_ref(x, w, cand, a, c, B, m, k, n, 1);
				free(a);
				free(c);
			} else if (!strcmp(cand_name, "per_tensor")) {
				bmm_per_tensor(x, w, cand, B, m, k, n);
			} else if (!strcmp(cand_name, "trunc")) {
				float *a = calloc((size_t)(B * m) + 1, 4), *c = calloc((size_t)(B * n) + 1, 4);
				q8_trunc = 1;
				bmm_ref(x, w, cand, a, c, B, m, k, n, 0);
				q8_trunc = 0;
				free(a);
				free(c);
			} else {
				fprintf(stderr, "cand?\n");
				return 1;
			}
			s0 = calloc((size_t)(B * m) + 1, sizeof(double));
			s1 = calloc((size_t)(B * n) + 1, sizeof(double));
			for (long long i = 0; i < B * m; i++)
				s0[i] = sx[i];
			for (long long i = 0; i < B * n; i++)
				s1[i] = sw[i];
			sc[nsc++] = (struct quant_scale){ "x_scale", s0, (size_t)(B * m) };
			sc[nsc++] = (struct quant_scale){ "w_scale", s1, (size_t)(B * n) };
			free(x);
			free(w);
			free(sx);
			free(sw);
		}

		/* the verdict: against the reference, then against the exact result */
		struct cmp_result cr, ex, rx;
		int pass, how = 0;
		compare_buffers(DT_F32, cand, ref, yb->shape, yb->ndim, &tol, &cr);
		pass = cr.pass;
		if (!pass && t->tol.metric && t->exact_buf) {
			pass = judge_exact(yb, &tol, cand, ref, exact, &ex, &rx);
			how = 1;
		}

		/* the lens, as quant_lens of engine_verify.c */
		char diag[400] = "(no lens: empty output)";
		struct quant_result q;
		char *vbuf = NULL; size_t vlen = 0;
		memset(&q, 0, sizeof(q));
		if (getenv("SIM_VERBOSE")) vb = open_memstream(&vbuf, &vlen);
		if (ny) {
			size_t shape[8];
			double *step = calloc(ny, sizeof(double)), *cv = calloc(ny, sizeof(double)),
			       *rv = calloc(ny, sizeof(double)), *xv = calloc(ny, sizeof(double));
			for (int d2 = 0; d2 < yb->ndim; d2++)
				shape[d2] = (size_t)yb->shape[d2];
			if (quant_step_fill(t->quant, shape, yb->ndim, sc, nsc, step)) {
				snprintf(diag, sizeof(diag), "(no lens: %s)", kbx_last_error());
			} else {
				for (size_t e = 0; e < ny; e++) {
					cv[e] = cand[e];
					rv[e] = ref[e];
					xv[e] = exact[e];
				}
				quant_analyse_exact(t->quant, cv, rv, xv, step, shape, yb->ndim, &q);
				if (getenv("SIM_DUMP")) {
					char p[512]; FILE *f;
					snprintf(p, sizeof p, "%s/%s.bin", getenv("SIM_DUMP"), tc->name);
					f = fopen(p, "wb"); fwrite(cv, 8, ny, f); fwrite(rv, 8, ny, f); fwrite(xv, 8, ny, f); fwrite(step, 8, ny, f); fclose(f);
				}
				if (getenv("SIM_VERBOSE")) {
					follow_print("rows", cv, rv, xv, step, shape, yb->ndim, t->quant->row_axes, t->quant->nrow_axes);
					follow_print("cols", cv, rv, xv, step, shape, yb->ndim, t->quant->col_axes, t->quant->ncol_axes);
					if (t->quant->quantized) {
						double near = 1e9; size_t at = 0; int nb = 0;
						for (size_t e = 0; e < ny; e++) if (step[e] > 0) {
							double qc = fabs(cv[e] / step[e]);
							if (fabs(qc - 127.5) < near) { near = fabs(qc - 127.5); at = e; }
							nb += rint(qc) > 127;
						}
						fprintf(vb, "    |cand/step| closest to 127.5: %.6f (elem %zu); beyond %d\n", fabs(cv[at]/step[at]), at, nb);
					}
				}
				snprintf(diag, sizeof(diag), "%s", q.diagnosis);
			}
			free(step);
			free(cv);
			free(rv);
			free(xv);
		}
		printf("%-32s %s  vs-ref cos %.5f l1 %.8g rmse %.8g (rmse thr %.4g)", tc->name, pass ? "pass" : "FAIL",
		       cr.cosine, cr.l1_relative, cr.rmse, tol.rmse * (tol.atol_scale > 0 ? tol.atol_scale : 1));
		if (how)
			printf(" | vs-exact cos %.5f l1 %.4g rmse %.4g; ref-vs-exact cos %.5f l1 %.4g rmse %.4g", ex.cosine,
			       ex.l1_relative, ex.rmse, rx.cosine, rx.l1_relative, rx.rmse);
		printf("\n    lens: %s\n", diag);
		if (getenv("SIM_VERBOSE")) printf("    nearest rounding tie (ref+cand): |frac-0.5|/|q| = %.3g at q = %.6f\n", tie_min, tie_q);
		tie_min = 1e9;
		if (getenv("SIM_VERBOSE") && q.valid) {
			printf("    hist exact %llu half %llu one %llu more %llu; max %.4g mean %.4g; noise %.4g; rows n %d spread %.4g within %.4g; cols n %d spread %.4g within %.4g; sat ref_end %llu cand_end %llu beyond %llu\n",
			       q.hist[0], q.hist[1], q.hist[2], q.hist[3], q.max_steps, q.mean_steps, q.noise, q.rows.n,
			       q.rows.spread, q.rows.within, q.cols.n, q.cols.spread, q.cols.within, q.ref_at_end,
			       q.cand_at_end, q.cand_beyond);
		}
		if (vb) { fclose(vb); fputs(vbuf, stdout); free(vbuf); vb = NULL; vbuf = NULL; }
		free(ref);
		free(cand);
		free(exact);
		free(s0);
		free(s1);
		problem_free(&pb);
	}
	derive_cases_free(extra, nextra);
	task_free(t);
	return 0;
}
