/* lens_sim_models.c - bench/lens_sim's kernel models: each task's reference.cu and wrong examples
 * written in f32 C from their sources (fmaf where nvcc contracts a * b + c or the source calls it;
 * built with -ffp-contract=off, so nothing else fuses), with the exact result the reference keeps
 * for [tolerance] exact, on kbx's own inputs (lens_sim.c draws them). One sim_* function per task
 * (lens_sim.h): it draws the case's inputs, runs the reference, the candidate and the exact
 * kernel, and hands the reference's scales to the lens.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lens_sim.h"

/* ---------------------------------------------------------------- layernorm */

/* the layernorm's quantize-dequantize of one value (trunc: toward zero) */
static float qd(float z, float scale, int trunc)
{
	if (!(scale > 0.0f))
		return 0.0f;
	float q = z / scale;
	tie_note(q);
	q = trunc ? truncf(q) : rintf(q);
	return fminf(fmaxf(q, -127.0f), 127.0f) * scale;
}

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

/* layernorm_w8a8: ref, trunc (wrong_truncating_rounding.cu), per_tensor (wrong_per_tensor_scale.cu);
 * SIM_ALT=1 takes the affine step without FMA */
int sim_layernorm_w8a8(struct sim_case *c)
{
	const long long rows = (long long)sim_env(c, "rows"), d = (long long)sim_env(c, "d");
	const float eps = (float)sim_env(c, "eps");
	const int trunc = !strcmp(c->cand, "trunc");

	if (strcmp(c->cand, "ref") && !trunc && strcmp(c->cand, "per_tensor"))
		return -1;
	alt_mode = getenv("SIM_ALT") != NULL;
	float *x = sim_draw(c, "input"), *w = sim_draw(c, "weight"), *bb = sim_draw(c, "bias");
	float *ysc = calloc((size_t)rows + 1, 4), *tmp = calloc((size_t)rows + 1, 4);

	ln_ref(x, w, bb, c->ref, ysc, rows, d, eps, 0);
	ln_exact(x, w, bb, c->exact, rows, d, eps);
	if (!strcmp(c->cand, "per_tensor"))
		ln_per_tensor(x, w, bb, c->out, rows, d, eps);
	else
		ln_ref(x, w, bb, c->out, tmp, rows, d, eps, trunc);
	sim_scale(c, "y_scale", ysc, (size_t)rows);
	free(x);
	free(w);
	free(bb);
	free(ysc);
	free(tmp);
	return 0;
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

/* matmul_w8a8's wrong_weight_scale_axis.cu (tests/pending/quant_examples.patch): the input as the
 * reference quantizes it, the weight [k, n] per row kk (sw[kk] = max |weight[kk, :]| / 127), and
 * each int8 product dequantized with its kk's scale: sum = fmaf(x_q * w_q, sw[kk], sum) in kk order
 * (the 16-wide slices of gemm_i8_kscale; the padding adds fmaf(0, 0, sum), nothing), y = sum * sx */
static void matmul_weight_axis(const float *x, const float *w, float *y, long long m, long long k, long long n)
{
	int *xq = malloc(sizeof(int) * (size_t)(m * k + 1)), *wq = malloc(sizeof(int) * (size_t)(k * n + 1));
	float *sx = calloc((size_t)m + 1, 4), *swk = calloc((size_t)k + 1, 4);

	for (long long i = 0; i < m; i++) {
		float amax = 0;
		for (long long j = 0; j < k; j++)
			amax = fmaxf(amax, fabsf(x[i * k + j]));
		sx[i] = amax / 127.0f;
		for (long long j = 0; j < k; j++)
			xq[i * k + j] = q8(x[i * k + j], sx[i]);
	}
	for (long long kk = 0; kk < k; kk++) {
		float amax = 0;
		for (long long j = 0; j < n; j++)
			amax = fmaxf(amax, fabsf(w[kk * n + j]));
		swk[kk] = amax / 127.0f;
		for (long long j = 0; j < n; j++)
			wq[kk * n + j] = q8(w[kk * n + j], swk[kk]);
	}
	for (long long i = 0; i < m; i++)
		for (long long j = 0; j < n; j++) {
			float sum = 0.0f;
			for (long long kk = 0; kk < k; kk++)
				sum = fmaf((float)(xq[i * k + kk] * wq[kk * n + j]), swk[kk], sum);
			y[i * n + j] = sum * sx[i];
		}
	free(xq);
	free(wq);
	free(sx);
	free(swk);
}

/* bmm_w8a8 and matmul_w8a8: ref, per_tensor, per_batch_input (bmm's), trunc, and matmul's
 * weight_axis (tests/pending/quant_examples.patch) */
int sim_gemm_w8a8(struct sim_case *c)
{
	const int bmm = !strcmp(c->t->name, "bmm_w8a8");
	const long long B = bmm ? (long long)sim_env(c, "b") : 1, m = (long long)sim_env(c, "m"),
			k = (long long)sim_env(c, "k"), n = (long long)sim_env(c, "n");
	const char *cand = c->cand;

	if (strcmp(cand, "ref") && strcmp(cand, "per_batch_input") && strcmp(cand, "per_tensor") &&
	    strcmp(cand, "trunc") && (bmm || strcmp(cand, "weight_axis")))
		return -1;
	float *x = sim_draw(c, "input"), *w = sim_draw(c, bmm ? "mat2" : "weight");
	float *sx = calloc((size_t)(B * m) + 1, 4), *sw = calloc((size_t)(B * n) + 1, 4);
	float *a = calloc((size_t)(B * m) + 1, 4), *b = calloc((size_t)(B * n) + 1, 4);

	bmm_ref(x, w, c->ref, sx, sw, B, m, k, n, 0);
	gemm_exact(x, w, c->exact, B, m, k, n);
	if (!strcmp(cand, "per_tensor")) {
		bmm_per_tensor(x, w, c->out, B, m, k, n);
	} else if (!strcmp(cand, "weight_axis")) {
		matmul_weight_axis(x, w, c->out, m, k, n);
	} else {
		q8_trunc = !strcmp(cand, "trunc");
		bmm_ref(x, w, c->out, a, b, B, m, k, n, !strcmp(cand, "per_batch_input"));
		q8_trunc = 0;
	}
	sim_scale(c, "x_scale", sx, (size_t)(B * m));
	sim_scale(c, "w_scale", sw, (size_t)(B * n));
	free(x);
	free(w);
	free(sx);
	free(sw);
	free(a);
	free(b);
	return 0;
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


/* conv2d_w8a8: ref, trunc, per_tensor (one weight scale for the tensor,
 * wrong_per_tensor_weight_scale.cu), weight_axis (one per input channel, wrong_weight_scale_axis.cu) */
int sim_conv2d_w8a8(struct sim_case *c)
{
	struct conv cv = { (long long)sim_env(c, "nb"), (long long)sim_env(c, "cin"), (long long)sim_env(c, "h"),
			   (long long)sim_env(c, "w"), (long long)sim_env(c, "cout"), (long long)sim_env(c, "kh"),
			   (long long)sim_env(c, "kw"), (long long)sim_env(c, "stride"),
			   (long long)sim_env(c, "padding"), 0, 0, (int)sim_env(c, "has_bias") };
	static const char *const names[] = { "ref", "trunc", "per_tensor", "weight_axis" };
	int cand_i = -1;

	for (int i = 0; i < 4; i++)
		if (!strcmp(c->cand, names[i]))
			cand_i = i;
	if (cand_i < 0)
		return -1;
	cv.ho = (cv.h + 2 * cv.pad - cv.kh) / cv.stride + 1;
	cv.wo = (cv.w + 2 * cv.pad - cv.kw) / cv.stride + 1;
	float *x = sim_draw(c, "input"), *w = sim_draw(c, "weight"), *bb = sim_draw(c, "bias");
	float sx, csx, *sw = calloc((size_t)cv.cout + 1, 4), *csw = calloc((size_t)cv.cout + 1, 4);

	conv_q8(&cv, x, w, bb, c->ref, &sx, sw, CONV_REF);
	conv_q8(&cv, x, w, bb, c->out, &csx, csw, (enum conv_cand)cand_i);
	conv_exact(&cv, x, w, bb, c->exact);
	/* the reference's scratch x_scale [1] and w_scale [cout], as the [quant] step names them */
	sim_scale(c, "x_scale", &sx, 1);
	sim_scale(c, "w_scale", sw, (size_t)cv.cout);
	free(x);
	free(w);
	free(bb);
	free(sw);
	free(csw);
	return 0;
}

/* ---------------------------------------------------------------- attention */

/* reference.cu's quant_rows over rows of d (the query with 1/sqrt(d) folded in: fold), and
 * wrong_scale_over_255.cu's (div = 255): scale = max |x * factor| / div, q = rint(x * factor /
 * scale) clamped to [-127, 127] (0 for a scale of 0) */
static void att_quant_rows(const float *x, int *xq, float *xs, long long rows, long long d, int fold, float div)
{
	const float factor = fold ? 1.0f / sqrtf((float)d) : 1.0f;

	for (long long r = 0; r < rows; r++) {
		float amax = 0.0f;
		for (long long j = 0; j < d; j++)
			amax = fmaxf(amax, fabsf(x[r * d + j] * factor));
		xs[r] = amax / div;
		for (long long j = 0; j < d; j++)
			xq[r * d + j] = q8(x[r * d + j] * factor, xs[r]);
	}
}

/* A block's sum over its threads (nthreads of them, a multiple of 32) of the per-thread sums of
 * e[j] for j = t, t + nthreads, ..: every warp's xor butterfly, then the warps' results added in
 * order (block_sum of reference.cu with 256 threads, attention_exact_reduce and the per-tensor
 * example's block_reduce with 128). */
static float block_sum(const float *e, long long s, int nthreads)
{
	float part[256], sh[8];

	for (int t = 0; t < nthreads; t++) {
		float v = 0.0f;
		for (long long j = t; j < s; j += nthreads)
			v += e[j];
		part[t] = v;
	}
	for (int w = 0; w < nthreads / 32; w++)
		sh[w] = warp_sum(part + 32 * w);
	float v = sh[0];
	for (int w = 1; w < nthreads / 32; w++)
		v += sh[w];
	return v;
}

/* reference.cu (div 127) and wrong_scale_over_255.cu (div 255): quant_rows on query, key and value;
 * scores_i8 (the int32 dot products, exact in any order, then acc * sq[i] * sk[j]); softmax_rows
 * (256 threads: max, expf(x - max), block_sum, e / sum); pv_f32 (fmaf(p, v_q * v_scale, acc) over
 * the keys in order: the 32-key slices hold the zero padding past s). vs: the v_scale it keeps. */
static void att_ref(const float *q, const float *k, const float *v, float *out, float *vs, long long b, long long s,
		    long long d, float div)
{
	const long long rows = b * s;
	int *qq = malloc(sizeof(int) * (size_t)(rows * d + 1)), *kq = malloc(sizeof(int) * (size_t)(rows * d + 1)),
	    *vq = malloc(sizeof(int) * (size_t)(rows * d + 1));
	float *qs = calloc((size_t)rows + 1, 4), *ks = calloc((size_t)rows + 1, 4);
	float *p = calloc((size_t)s + 1, 4), *vd = calloc((size_t)(s * d) + 1, 4);

	att_quant_rows(q, qq, qs, rows, d, 1, div);
	att_quant_rows(k, kq, ks, rows, d, 0, div);
	att_quant_rows(v, vq, vs, rows, d, 0, div);
	for (long long bt = 0; bt < b; bt++) {
		for (long long j = 0; j < s; j++)
			for (long long c = 0; c < d; c++)
				vd[j * d + c] = (float)vq[(bt * s + j) * d + c] * vs[bt * s + j];
		for (long long i = 0; i < s; i++) {
			const long long gi = bt * s + i;
			float mx = -INFINITY;
			for (long long j = 0; j < s; j++) {
				int acc = 0;
				for (long long c = 0; c < d; c++)
					acc += qq[gi * d + c] * kq[(bt * s + j) * d + c];
				p[j] = (float)acc * qs[gi] * ks[bt * s + j];
				mx = fmaxf(mx, p[j]);
			}
			for (long long j = 0; j < s; j++)
				p[j] = expf(p[j] - mx);
			const float sum = block_sum(p, s, 256);
			for (long long j = 0; j < s; j++)
				p[j] = p[j] / sum;
			for (long long c = 0; c < d; c++) {
				float acc = 0.0f;
				for (long long j = 0; j < s; j++)
					acc = fmaf(p[j], vd[j * d + c], acc);
				out[gi * d + c] = acc;
			}
		}
	}
	free(qq);
	free(kq);
	free(vq);
	free(qs);
	free(ks);
	free(p);
	free(vd);
}

/* examples/wrong_per_tensor_scales.cu: one scale per tensor (the query's after the 1/sqrt(d) fold)
 * from tensor_absmax, and attn_per_tensor's 128-thread block per query row: p = acc * sq * sk,
 * expf(p - max), the block's sum, then fmaf(p / total, q8(v) * sv, o) over the keys in order */
static void att_per_tensor(const float *q, const float *k, const float *v, float *out, long long b, long long s,
			   long long d)
{
	const long long n = b * s * d;
	const float factor = 1.0f / sqrtf((float)d);
	float aq = 0.0f, ak = 0.0f, av = 0.0f;

	for (long long i = 0; i < n; i++) {
		aq = fmaxf(aq, fabsf(q[i] * factor));
		ak = fmaxf(ak, fabsf(k[i]));
		av = fmaxf(av, fabsf(v[i]));
	}
	const float sq = aq / 127.0f, sk = ak / 127.0f, sv = av / 127.0f;
	float *p = calloc((size_t)s + 1, 4);

	for (long long row = 0; row < b * s; row++) {
		const long long bt = row / s;
		const float *qr = q + row * d, *kb = k + bt * s * d, *vb = v + bt * s * d;
		float mx = -INFINITY;
		for (long long j = 0; j < s; j++) {
			int acc = 0;
			for (long long c = 0; c < d; c++)
				acc += q8(qr[c] * factor, sq) * q8(kb[j * d + c], sk);
			p[j] = (float)acc * sq * sk;
			mx = fmaxf(mx, p[j]);
		}
		for (long long j = 0; j < s; j++)
			p[j] = expf(p[j] - mx);
		const float total = block_sum(p, s, 128);
		for (long long c = 0; c < d; c++) {
			float o = 0.0f;
			for (long long j = 0; j < s; j++)
				o = fmaf(p[j] / total, (float)q8(vb[j * d + c], sv) * sv, o);
			out[row * d + c] = o;
		}
	}
	free(p);
}

/* kbx/attention_exact.h (128 threads per query row): fmaf dot products in d order, times 1/sqrt(d),
 * expf(x - max), the block's sum, fmaf(e, v, o) over the keys in order, then o / total */
static void att_exact(const float *q, const float *k, const float *v, float *out, long long b, long long s,
		      long long d)
{
	const float inv_sqrt_d = 1.0f / sqrtf((float)d);
	float *e = calloc((size_t)s + 1, 4);

	for (long long row = 0; row < b * s; row++) {
		const long long bt = row / s;
		const float *qr = q + row * d, *kb = k + bt * s * d, *vb = v + bt * s * d;
		float mx = -INFINITY;
		for (long long j = 0; j < s; j++) {
			float dot = 0.0f;
			for (long long c = 0; c < d; c++)
				dot = fmaf(qr[c], kb[j * d + c], dot);
			e[j] = dot * inv_sqrt_d;
			mx = fmaxf(mx, e[j]);
		}
		for (long long j = 0; j < s; j++)
			e[j] = expf(e[j] - mx);
		const float total = block_sum(e, s, 128);
		for (long long c = 0; c < d; c++) {
			float o = 0.0f;
			for (long long j = 0; j < s; j++)
				o = fmaf(e[j], vb[j * d + c], o);
			out[row * d + c] = o / total;
		}
	}
	free(e);
}

/* attention_w8a8: ref, per_tensor (wrong_per_tensor_scales.cu), over_255 (wrong_scale_over_255.cu) */
int sim_attention_w8a8(struct sim_case *c)
{
	const long long b = (long long)sim_env(c, "b"), s = (long long)sim_env(c, "s"), d = (long long)sim_env(c, "d");

	if (strcmp(c->cand, "ref") && strcmp(c->cand, "per_tensor") && strcmp(c->cand, "over_255"))
		return -1;
	float *q = sim_draw(c, "query"), *k = sim_draw(c, "key"), *v = sim_draw(c, "value");
	float *vs = calloc((size_t)(b * s) + 1, 4), *cvs = calloc((size_t)(b * s) + 1, 4);

	att_ref(q, k, v, c->ref, vs, b, s, d, 127.0f);
	att_exact(q, k, v, c->exact, b, s, d);
	if (!strcmp(c->cand, "per_tensor"))
		att_per_tensor(q, k, v, c->out, b, s, d);
	else
		att_ref(q, k, v, c->out, cvs, b, s, d, strcmp(c->cand, "ref") ? 255.0f : 127.0f);
	/* the [quant] step: the reference's v_scale [b, s] (averaged over each batch's keys) */
	sim_scale(c, "v_scale", vs, (size_t)(b * s));
	free(q);
	free(k);
	free(v);
	free(vs);
	free(cvs);
	return 0;
}

/* ---------------------------------------------------------------- linear_w4a16 */

/* f32 to f16 and back, rounded to the nearest even as __float2half_rn (and kbx's dtype.c) */
static float h16(float f)
{
	return (float)(_Float16)f;
}

enum lin_cand { LIN_REF, LIN_PER_TENSOR, LIN_OVER_8, LIN_TRUNC, LIN_NO_CLAMP, LIN_SCALE_AXIS };

/* int4 of w on scale as the nibble linear_w4 reads back: rint (trunc: truncf) of the f32 quotient
 * w / scale, clamped to [-8, 7], 0 for a scale of 0; without the clamp (wrong_missing_clamp.cu)
 * the low four bits sign-extended, so +8 comes back as -8 */
static int q4(float w, float scale, enum lin_cand cand)
{
	if (!(scale > 0.0f))
		return 0;
	const float t = cand == LIN_TRUNC ? truncf(w / scale) : rintf(w / scale);
	if (cand == LIN_NO_CLAMP)
		return (((int)t & 0xF) ^ 8) - 8;
	return (int)fminf(fmaxf(t, -8.0f), 7.0f);
}

/* reference.cu and the examples built on it (all but per_tensor). quant_pack: one scale per weight
 * row, max |w| / 7.0f (/ 8.0f: over_8, no_clamp), or per column for scale_axis (col_scale: the
 * max down column c / 7.0f). linear_w4: lane l of a warp sums the packed words l, l + 32, .. of its
 * row, eight k each in order, fmaf(x, q, acc) (scale_axis: fmaf(x, q * k_scale[c], acc)), zero past
 * k; the lanes meet in the xor butterfly, and y = f16(fmaf(sum, scale, bias)) (nvcc contracts
 * sum * w_scale[j] + b), or f16(sum + bias) for scale_axis. ws: the scales it keeps, [n] (scale_axis:
 * [k]). */
static void lin_w4(const float *x, const float *w, const float *bias, float *y, float *ws, long long m, long long k,
		   long long n, int has_bias, enum lin_cand cand)
{
	const long long words = (k + 7) / 8;
	const float div = cand == LIN_OVER_8 || cand == LIN_NO_CLAMP ? 8.0f : 7.0f;
	float *wd = calloc((size_t)(n * k) + 1, 4), lane[32];

	if (cand == LIN_SCALE_AXIS)
		for (long long col = 0; col < k; col++) {
			float amax = 0.0f;
			for (long long j = 0; j < n; j++)
				amax = fmaxf(amax, fabsf(w[j * k + col]));
			ws[col] = amax / 7.0f;
		}
	else
		for (long long j = 0; j < n; j++) {
			float amax = 0.0f;
			for (long long i = 0; i < k; i++)
				amax = fmaxf(amax, fabsf(w[j * k + i]));
			ws[j] = amax / div;
		}
	/* the weight each product takes: q, or (scale_axis) q dequantized with its column's scale */
	for (long long j = 0; j < n; j++)
		for (long long i = 0; i < k; i++)
			wd[j * k + i] = cand == LIN_SCALE_AXIS ? (float)q4(w[j * k + i], ws[i], cand) * ws[i]
							       : (float)q4(w[j * k + i], ws[j], cand);
	for (long long r = 0; r < m; r++)
		for (long long j = 0; j < n; j++) {
			for (int l = 0; l < 32; l++) {
				float acc = 0.0f;
				for (long long wi = l; wi < words; wi += 32)
					for (long long i = 8 * wi; i < 8 * wi + 8 && i < k; i++)
						acc = fmaf(x[r * k + i], wd[j * k + i], acc);
				lane[l] = acc;
			}
			const float sum = warp_sum(lane), b = has_bias ? bias[j] : 0.0f;
			y[r * n + j] = h16(cand == LIN_SCALE_AXIS ? sum + b : fmaf(sum, ws[j], b));
		}
	free(wd);
}

/* examples/wrong_per_tensor_scale.cu: one scale, max |weight| / 7.0f; linear_packed's warp per
 * output feature: lane l sums k = l, l + 32, .. with fmaf(x, q, dot), the xor butterfly, and
 * y = f16(fmaf(dot, scale, bias)) */
static void lin_per_tensor(const float *x, const float *w, const float *bias, float *y, long long m, long long k,
			   long long n, int has_bias)
{
	float amax = 0.0f, lane[32];

	for (long long i = 0; i < n * k; i++)
		amax = fmaxf(amax, fabsf(w[i]));
	const float scale = amax / 7.0f;
	for (long long r = 0; r < m; r++)
		for (long long j = 0; j < n; j++) {
			for (int l = 0; l < 32; l++) {
				float dot = 0.0f;
				for (long long i = l; i < k; i += 32)
					dot = fmaf(x[r * k + i], (float)q4(w[j * k + i], scale, LIN_REF), dot);
				lane[l] = dot;
			}
			y[r * n + j] = h16(fmaf(warp_sum(lane), scale, has_bias ? bias[j] : 0.0f));
		}
}

/* kbx/linear_exact.h: lane l sums k = l, l + 32, .. with fmaf(x, w, dot), the xor butterfly, and
 * y = f16(dot + bias) */
static void lin_exact(const float *x, const float *w, const float *bias, float *y, long long m, long long k,
		      long long n, int has_bias)
{
	float lane[32];

	for (long long r = 0; r < m; r++)
		for (long long j = 0; j < n; j++) {
			for (int l = 0; l < 32; l++) {
				float dot = 0.0f;
				for (long long i = l; i < k; i += 32)
					dot = fmaf(x[r * k + i], w[j * k + i], dot);
				lane[l] = dot;
			}
			y[r * n + j] = h16(warp_sum(lane) + (has_bias ? bias[j] : 0.0f));
		}
}

/* linear_w4a16: ref, per_tensor (wrong_per_tensor_scale.cu), amax_over_8 (wrong_scale_amax_over_8.cu),
 * trunc (wrong_truncating_rounding.cu), and from tests/pending/quant_examples.patch missing_clamp
 * (wrong_missing_clamp.cu) and scale_axis (wrong_scale_axis.cu) */
int sim_linear_w4a16(struct sim_case *c)
{
	static const char *const names[] = { "ref", "per_tensor", "amax_over_8", "trunc", "missing_clamp",
					     "scale_axis" };
	const long long m = (long long)sim_env(c, "m"), k = (long long)sim_env(c, "k"), n = (long long)sim_env(c, "n");
	const int has_bias = (int)sim_env(c, "has_bias");
	int cand = -1;

	for (int i = 0; i < 6; i++)
		if (!strcmp(c->cand, names[i]))
			cand = i;
	if (cand < 0)
		return -1;
	float *x = sim_draw(c, "input"), *w = sim_draw(c, "weight"), *bb = sim_draw(c, "bias");
	float *ws = calloc((size_t)n + 1, 4), *cws = calloc((size_t)(n > k ? n : k) + 1, 4);

	lin_w4(x, w, bb, c->ref, ws, m, k, n, has_bias, LIN_REF);
	lin_exact(x, w, bb, c->exact, m, k, n, has_bias);
	if (cand == LIN_PER_TENSOR)
		lin_per_tensor(x, w, bb, c->out, m, k, n, has_bias);
	else
		lin_w4(x, w, bb, c->out, cws, m, k, n, has_bias, (enum lin_cand)cand);
	/* the [quant] step: the reference's w_scale [n], one per output channel */
	sim_scale(c, "w_scale", ws, (size_t)n);
	free(x);
	free(w);
	free(bb);
	free(ws);
	free(cws);
	return 0;
}
