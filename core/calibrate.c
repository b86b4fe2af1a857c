/*
 * calibrate.c - the calibration kernels, their timing, and the fractions they give.
 */
#include "calibrate.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "util.h"

/*
 * Each kernel writes its result only when it equals `never`, which the host passes as NaN:
 * nothing equals NaN, but the compiler cannot know the value, so it must compute every chain.
 * The compute kernels read nothing from memory inside their loops; their inputs are kernel
 * parameters (FMA) or fragments loaded once (wmma).
 */
static const char source[] =
	"#include <cuda_fp16.h>\n"
	"#include <mma.h>\n"
	"\n"
	"/* grid-stride float4 copy, four loads in flight per thread */\n"
	"extern \"C\" __global__ void kbx_cal_copy_stride(const float4 *__restrict__ src, float4 *__restrict__ dst,\n"
	"\t\t\t\t\t\tunsigned long long n)\n"
	"{\n"
	"\tunsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
	"\tunsigned long long s = (unsigned long long)gridDim.x * blockDim.x;\n"
	"\n"
	"\tfor (; i + 3 * s < n; i += 4 * s) {\n"
	"\t\tfloat4 a = src[i], b = src[i + s], c = src[i + 2 * s], d = src[i + 3 * s];\n"
	"\t\tdst[i] = a;\n"
	"\t\tdst[i + s] = b;\n"
	"\t\tdst[i + 2 * s] = c;\n"
	"\t\tdst[i + 3 * s] = d;\n"
	"\t}\n"
	"\tfor (; i < n; i += s)\n"
	"\t\tdst[i] = src[i];\n"
	"}\n"
	"\n"
	"/* one float4 per thread */\n"
	"extern \"C\" __global__ void kbx_cal_copy_flat(const float4 *__restrict__ src, float4 *__restrict__ dst,\n"
	"\t\t\t\t\t      unsigned long long n)\n"
	"{\n"
	"\tunsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
	"\n"
	"\tif (i < n)\n"
	"\t\tdst[i] = src[i];\n"
	"}\n"
	"\n"
	"/* 8 independent FMA chains, 32 steps each per iteration: 256 FMAs per thread and iteration */\n"
	"extern \"C\" __global__ void kbx_cal_fma(float *out, float a, float b, int iters, float never)\n"
	"{\n"
	"\tfloat x0 = threadIdx.x * 1e-3f, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;\n"
	"\tfloat x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;\n"
	"\n"
	"\tfor (int i = 0; i < iters; i++) {\n"
	"#pragma unroll\n"
	"\t\tfor (int j = 0; j < 32; j++) {\n"
	"\t\t\tx0 = fmaf(x0, a, b);\n"
	"\t\t\tx1 = fmaf(x1, a, b);\n"
	"\t\t\tx2 = fmaf(x2, a, b);\n"
	"\t\t\tx3 = fmaf(x3, a, b);\n"
	"\t\t\tx4 = fmaf(x4, a, b);\n"
	"\t\t\tx5 = fmaf(x5, a, b);\n"
	"\t\t\tx6 = fmaf(x6, a, b);\n"
	"\t\t\tx7 = fmaf(x7, a, b);\n"
	"\t\t}\n"
	"\t}\n"
	"\tfloat s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));\n"
	"\tif (s == never)\n"
	"\t\tout[blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
	"}\n"
	"\n"
	"/* small values that are not zeros: a tensor core's power, and so its clock, depends on the data */\n"
	"extern \"C\" __global__ void kbx_cal_fill_half(__half *p, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\n"
	"\tif (i < n)\n"
	"\t\tp[i] = __float2half(0.0078125f * (float)((i * 7) % 13 - 6));\n"
	"}\n"
	"\n"
	"/* per warp, 8 accumulators of 16x16 f32, each step one 16x16x16 f16 multiply-add into each */\n"
	"extern \"C\" __global__ void kbx_cal_wmma(const __half *a, const __half *b, float *out, int iters, float never)\n"
	"{\n"
	"#if __CUDA_ARCH__ >= 700\n"
	"\tusing namespace nvcuda;\n"
	"\twmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;\n"
	"\twmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;\n"
	"\twmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[8];\n"
	"\n"
	"\twmma::load_matrix_sync(fa, a, 16);\n"
	"\twmma::load_matrix_sync(fb, b, 16);\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < 8; k++)\n"
	"\t\twmma::fill_fragment(acc[k], 0.0f);\n"
	"\tfor (int i = 0; i < iters; i++) {\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < 8; k++)\n"
	"\t\t\twmma::mma_sync(acc[k], fa, fb, acc[k]);\n"
	"\t}\n"
	"\tfloat s = 0.0f;\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < 8; k++)\n"
	"\t\tfor (int e = 0; e < acc[k].num_elements; e++)\n"
	"\t\t\ts += acc[k].x[e];\n"
	"\tif (s == never)\n"
	"\t\twmma::store_matrix_sync(out + 256 * (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32), acc[0], 16,\n"
	"\t\t\t\t\twmma::mem_row_major);\n"
	"#endif\n"
	"}\n";

const char *calibrate_source(void)
{
	return source;
}

enum kbx_status calibrate_compile(int arch, struct nvrtc_output *out)
{
	/* No kbx include folder: the kernels need only the toolkit's headers. */
	return nvrtc_compile(source, "kbx_calibrate.cu", arch, NULL, NULL, out);
}

/* ---- fractions and formatting ------------------------------------------------------------ */

double calibrate_fraction(double value, double peak)
{
	if (!(value > 0) || !(peak > 0) || !isfinite(value) || !isfinite(peak))
		return -1;
	return value / peak;
}

int calibrate_task_tensor(const struct task *t)
{
	for (int i = 0; t && i < t->nargs; i++)
		if (t->args[i].dir != ARG_SCALAR && (t->args[i].dtype == DT_F16 || t->args[i].dtype == DT_BF16))
			return 1;
	return 0;
}

void calibrate_annotate(const struct calibration *c, int tensor, struct perf_result *p)
{
	double peak = -1;

	if (c)
		peak = tensor ? c->tensor_tflops : c->fma_tflops;
	p->bw_fraction = c ? calibrate_fraction(p->gbps, c->copy_gbps) : -1;
	p->flop_fraction = calibrate_fraction(p->tflops, peak);
}

void calibrate_format_rate(char *buf, size_t len, double value, double fraction)
{
	double pct = fraction * 100;

	if (!len)
		return;
	if (!(value >= 0) || !isfinite(value)) {
		snprintf(buf, len, "-");
		return;
	}
	if (!(fraction > 0) || !isfinite(fraction))
		snprintf(buf, len, "%.4g", value);
	else if (pct < 0.1)
		snprintf(buf, len, "%.4g (<0.1%%)", value);
	else if (pct < 9.95)
		snprintf(buf, len, "%.4g (%.1f%%)", value, pct);
	else
		snprintf(buf, len, "%.4g (%.0f%%)", value, pct);
}

enum kbx_status calibrate_parse_device(const char *text, int *out)
{
	const char *p = text;
	long v = 0;

	*out = 0;
	if (!text || !*text)
		return kbx_error(KBX_EPARSE, "expected a CUDA device number (0, 1, ...), not an empty string");
	/* Digits only: no sign, no blanks, no hex; the ordinals of one machine are small. */
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > 1023)
			break;
		v = v * 10 + (*p - '0');
	}
	if (*p || v > 1023)
		return kbx_error(KBX_EPARSE, "expected a CUDA device number (0, 1, ...), not '%.64s'", text);
	*out = (int)v;
	return KBX_OK;
}

/* ---- the annotator ------------------------------------------------------------------------ */

#define FORWARD(a, cb, ...) \
	do { \
		if ((a)->to && (a)->to->cb) \
			(a)->to->cb((a)->to->ctx, __VA_ARGS__); \
	} while (0)

static void an_phase(void *ctx, const char *what, double limit_s)
{
	FORWARD((struct calibrate_annotator *)ctx, phase, what, limit_s);
}

static void an_compile(void *ctx, const struct compile_result *c)
{
	FORWARD((struct calibrate_annotator *)ctx, compile, c);
}

static void an_case(void *ctx, const struct case_result *c)
{
	FORWARD((struct calibrate_annotator *)ctx, case_done, c);
}

static void an_perf(void *ctx, const struct perf_result *p)
{
	struct calibrate_annotator *a = ctx;
	/* A shallow copy: its strings stay the engine's, and nothing here frees them. */
	struct perf_result q = *p;

	calibrate_annotate(a->cal, a->tensor, &q);
	FORWARD(a, perf_row, &q);
}

static void an_log(void *ctx, const char *text)
{
	FORWARD((struct calibrate_annotator *)ctx, log, text);
}

static void an_done(void *ctx, const struct run_summary *s)
{
	FORWARD((struct calibrate_annotator *)ctx, done, s);
}

struct run_events calibrate_annotator_events(struct calibrate_annotator *a)
{
	return (struct run_events){
		.ctx = a,
		.phase = an_phase,
		.compile = an_compile,
		.case_done = an_case,
		.perf_row = an_perf,
		.log = an_log,
		.done = an_done,
	};
}

/* ---- measuring ---------------------------------------------------------------------------- */

/* Limits the parent's watchdog applies to each phase, in seconds. */
#define CAL_COMPILE_LIMIT_S 120
#define CAL_PHASE_LIMIT_S 120

/* Copy buffers: each min(1 GiB, a quarter of free memory), and at least 4 x L2 (else the copy
 * would partly run out of L2 and measure that instead). */
#define CAL_COPY_MAX_BYTES ((size_t)1 << 30)
#define CAL_COPY_MIN_BYTES ((size_t)64 << 20)

/* Repetitions: a warm-up of this many milliseconds (clocks settle; the first launch loads the
 * module), then this many timed launches, their median reported. */
#define CAL_WARMUP_MS 200.0
#define CAL_REPS 20
/* A compute kernel's loop count grows until one launch takes at least this long, so that the
 * launch's own cost and the last wave's tail are small beside it. */
#define CAL_TARGET_MS 5.0

/* Blocks per SM for the compute kernels: 240 is divisible by every resident-block count up to 6
 * and by 8, 10, 12, 15 and 16, so the last wave is full on most devices; where it is not, the
 * tail is at most one wave in 15. */
#define CAL_BLOCKS_PER_SM 240

struct cal {
	struct gpu *g;
	const struct gpu_info *info;
	const struct run_events *progress;
	struct gpu_module *mod;
	gpu_event start, end;
};

static void cal_phase(struct cal *c, const char *what, double limit_s)
{
	if (c->progress && c->progress->phase)
		c->progress->phase(c->progress->ctx, what, limit_s);
}

static void cal_log(struct cal *c, const char *fmt, ...) KBX_PRINTF(2, 3);

static void cal_log(struct cal *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!c->progress || !c->progress->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->progress->log(c->progress->ctx, line);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One unit of work to time: a kernel launch, or (f == NULL) cuMemcpyDtoD of copy_bytes. */
struct work {
	gpu_function f;
	const char *name;
	unsigned grid, block;
	void **params;
	gpu_ptr copy_dst, copy_src;
	size_t copy_bytes;
};

static enum kbx_status issue(struct cal *c, const struct work *w)
{
	unsigned grid[3] = { w->grid, 1, 1 }, block[3] = { w->block, 1, 1 };

	if (!w->f)
		return gpu_copy(c->g, w->copy_dst, w->copy_src, w->copy_bytes);
	return gpu_launch(c->g, w->f, w->name, grid, block, 0, w->params, 0);
}

/* The time of one unit, by a pair of events around it. */
static enum kbx_status time_once(struct cal *c, const struct work *w, double *ms)
{
	enum kbx_status st;
	float f = 0;

	*ms = 0;
	if ((st = gpu_event_record(c->g, c->start)) || (st = issue(c, w)) || (st = gpu_event_record(c->g, c->end)) ||
	    (st = gpu_event_elapsed_ms(c->g, c->start, c->end, &f)))
		return st;
	*ms = f;
	return KBX_OK;
}

/* Warm-up for CAL_WARMUP_MS, then the median of CAL_REPS timed units. */
static enum kbx_status time_median(struct cal *c, const struct work *w, double *ms)
{
	double samples[CAL_REPS], t, spent = 0;
	enum kbx_status st;
	int i;

	*ms = 0;
	for (i = 0; i < 1000 && spent < CAL_WARMUP_MS; i++) {
		if ((st = time_once(c, w, &t)))
			return st;
		spent += t > 0 ? t : 0.001;
	}
	for (i = 0; i < CAL_REPS; i++)
		if ((st = time_once(c, w, &samples[i])))
			return st;
	*ms = median(samples, CAL_REPS);
	if (!(*ms > 0))
		return kbx_error(KBX_ECUDA, "'%s' took no measurable time", w->name);
	return KBX_OK;
}

static enum kbx_status function(struct cal *c, const char *name, gpu_function *f)
{
	return gpu_module_function(c->g, c->mod, name, f);
}

static unsigned blocks_for(unsigned long long n, unsigned block)
{
	unsigned long long b = (n + block - 1) / block;

	return b > INT_MAX ? INT_MAX : (unsigned)b;
}

static enum kbx_status measure_copy(struct cal *c, double *gbps)
{
	size_t free_b = 0, total_b = 0, bytes, min_bytes;
	gpu_ptr src = 0, dst = 0;
	gpu_function fs = NULL, ff = NULL;
	unsigned long long n;
	enum kbx_status st;
	double ms_stride = 0, ms_flat = 0, ms_memcpy = 0, best;

	*gbps = -1;
	if ((st = gpu_mem_info(c->g, &free_b, &total_b)))
		return st;
	bytes = free_b / 4 < CAL_COPY_MAX_BYTES ? free_b / 4 : CAL_COPY_MAX_BYTES;
	bytes &= ~(((size_t)1 << 20) - 1);
	min_bytes = 4 * (size_t)(c->info->l2_bytes > 0 ? c->info->l2_bytes : 0);
	if (min_bytes < CAL_COPY_MIN_BYTES)
		min_bytes = CAL_COPY_MIN_BYTES;
	if (bytes < min_bytes)
		return kbx_error(KBX_ENOMEM, "too little free memory on '%s' to measure copy bandwidth: %zu MiB free, "
				 "2 x %zu MiB needed", c->info->name, free_b >> 20, min_bytes >> 20);
	n = bytes / 16;
	if ((st = function(c, "kbx_cal_copy_stride", &fs)) || (st = function(c, "kbx_cal_copy_flat", &ff)))
		return st;
	if ((st = gpu_alloc(c->g, bytes, &src)))
		return kbx_wrap(st, "copy bandwidth");
	if ((st = gpu_alloc(c->g, bytes, &dst))) {
		gpu_free(c->g, src);
		return kbx_wrap(st, "copy bandwidth");
	}
	st = gpu_memset32(c->g, src, 0x3f800000u, bytes / 4);
	if (!st)
		st = gpu_memset32(c->g, dst, 0, bytes / 4);
	if (!st) {
		void *params[] = { &src, &dst, &n };
		struct work stride = { fs, "kbx_cal_copy_stride", (unsigned)c->info->sms * 32, 256, params, 0, 0, 0 };
		struct work flat = { ff, "kbx_cal_copy_flat", blocks_for(n, 256), 256, params, 0, 0, 0 };
		struct work memcpy_w = { NULL, "cuMemcpyDtoD", 0, 0, NULL, dst, src, bytes };

		if (c->info->sms <= 0)
			stride.grid = 1024;
		st = time_median(c, &stride, &ms_stride);
		if (!st)
			st = time_median(c, &flat, &ms_flat);
		if (!st)
			st = time_median(c, &memcpy_w, &ms_memcpy);
	}
	gpu_free(c->g, src);
	gpu_free(c->g, dst);
	if (st)
		return kbx_wrap(st, "copy bandwidth");
	best = ms_stride < ms_flat ? ms_stride : ms_flat;
	if (ms_memcpy < best)
		best = ms_memcpy;
	/* Each byte is read once and written once. */
	*gbps = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
	cal_log(c, "copy: 2 x %zu MiB; grid-stride kernel %.0f GB/s, one float4 per thread %.0f GB/s, "
		"cuMemcpyDtoD %.0f GB/s", bytes >> 20, 2.0 * (double)bytes / (ms_stride * 1e-3) / 1e9,
		2.0 * (double)bytes / (ms_flat * 1e-3) / 1e9, 2.0 * (double)bytes / (ms_memcpy * 1e-3) / 1e9);
	return KBX_OK;
}

/*
 * Double *iters (the kernel reads it through params) until one launch takes CAL_TARGET_MS,
 * then time it. The loop count is capped so that a broken clock cannot make it run forever.
 */
static enum kbx_status time_compute(struct cal *c, struct work *w, int *iters, double *ms)
{
	enum kbx_status st;
	double t = 0;

	for (;;) {
		if ((st = time_once(c, w, &t)))
			return st;
		if (t >= CAL_TARGET_MS || *iters >= (1 << 22))
			break;
		*iters *= t > 0 && t < CAL_TARGET_MS / 16 ? 16 : 2;
	}
	return time_median(c, w, ms);
}

static enum kbx_status measure_fma(struct cal *c, double *tflops)
{
	gpu_function f = NULL;
	gpu_ptr out = 0;
	float a = 0.999f, b = 1e-3f, never = NAN;
	int iters = 4;
	unsigned block = 256, grid = (unsigned)(c->info->sms > 0 ? c->info->sms : 1) * CAL_BLOCKS_PER_SM;
	void *params[] = { &out, &a, &b, &iters, &never };
	struct work w = { NULL, "kbx_cal_fma", grid, block, params, 0, 0, 0 };
	enum kbx_status st;
	double ms = 0, flops;

	*tflops = -1;
	if ((st = function(c, "kbx_cal_fma", &f)))
		return st;
	w.f = f;
	if ((st = gpu_alloc(c->g, (size_t)grid * block * sizeof(float), &out)))
		return kbx_wrap(st, "f32 FMA throughput");
	st = time_compute(c, &w, &iters, &ms);
	gpu_free(c->g, out);
	if (st)
		return kbx_wrap(st, "f32 FMA throughput");
	/* 8 chains x 32 steps per iteration, 2 flops per FMA. */
	flops = 2.0 * 8 * 32 * (double)iters * (double)grid * block;
	*tflops = flops / (ms * 1e-3) / 1e12;
	cal_log(c, "f32 FMA: %u blocks of %u threads, %d iterations, %.3f ms: %.1f TFLOP/s", grid, block, iters, ms,
		*tflops);
	return KBX_OK;
}

static enum kbx_status measure_tensor(struct cal *c, double *tflops)
{
	gpu_function f = NULL, fill = NULL;
	gpu_ptr a = 0, b = 0, out = 0;
	float never = NAN;
	int iters = 4, n = 256;
	unsigned block = 128, grid = (unsigned)(c->info->sms > 0 ? c->info->sms : 1) * CAL_BLOCKS_PER_SM;
	unsigned fgrid[3] = { 1, 1, 1 }, fblock[3] = { 256, 1, 1 };
	void *params[] = { &a, &b, &out, &iters, &never };
	void *pa[] = { &a, &n }, *pb[] = { &b, &n };
	struct work w = { NULL, "kbx_cal_wmma", grid, block, params, 0, 0, 0 };
	enum kbx_status st;
	double ms = 0, flops;

	*tflops = -1;
	if ((st = function(c, "kbx_cal_wmma", &f)) || (st = function(c, "kbx_cal_fill_half", &fill)))
		return st;
	w.f = f;
	st = gpu_alloc(c->g, 256 * 2, &a);
	if (!st)
		st = gpu_alloc(c->g, 256 * 2, &b);
	/* One 16x16 tile per warp, written only in the case that never happens. */
	if (!st)
		st = gpu_alloc(c->g, (size_t)grid * (block / 32) * 256 * sizeof(float), &out);
	if (!st)
		st = gpu_launch(c->g, fill, "kbx_cal_fill_half", fgrid, fblock, 0, pa, 0);
	if (!st)
		st = gpu_launch(c->g, fill, "kbx_cal_fill_half", fgrid, fblock, 0, pb, 0);
	if (!st)
		st = time_compute(c, &w, &iters, &ms);
	gpu_free(c->g, a);
	gpu_free(c->g, b);
	gpu_free(c->g, out);
	if (st)
		return kbx_wrap(st, "f16 tensor throughput");
	/* Per warp and iteration: 8 multiply-adds of 16x16x16, 2 flops each. */
	flops = 2.0 * 16 * 16 * 16 * 8 * (double)iters * (double)grid * (block / 32);
	*tflops = flops / (ms * 1e-3) / 1e12;
	cal_log(c, "f16 tensor (wmma 16x16x16, f32 accumulate): %u blocks of %u threads, %d iterations, %.3f ms: "
		"%.1f TFLOP/s", grid, block, iters, ms, *tflops);
	return KBX_OK;
}

static double wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum kbx_status calibrate_run(struct gpu *g, const struct run_events *progress, struct calibration *out)
{
	struct cal c = { .g = g, .progress = progress };
	struct nvrtc_output nv;
	enum kbx_status st;
	int arch;

	memset(out, 0, sizeof(*out));
	out->copy_gbps = out->fma_tflops = out->tensor_tflops = -1;
	c.info = gpu_get_info(g);
	if (!c.info)
		return kbx_error(KBX_EINVAL, "calibration without a device");
	snprintf(out->gpu_name, sizeof(out->gpu_name), "%s", c.info->name);
	snprintf(out->gpu_uuid, sizeof(out->gpu_uuid), "%s", c.info->uuid);
	snprintf(out->kbx_version, sizeof(out->kbx_version), "%s", PACKAGE_VERSION);
	out->peak_gbps = c.info->peak_gbps;
	arch = c.info->cc_major * 10 + c.info->cc_minor;

	cal_phase(&c, "calibrate: compile", CAL_COMPILE_LIMIT_S);
	st = calibrate_compile(arch, &nv);
	if (st)
		return kbx_wrap(st, "cannot compile the calibration kernels for sm_%d", arch);
	if (!nv.ok) {
		st = kbx_error(KBX_ENVRTC, "cannot compile the calibration kernels for sm_%d: %s", arch,
			       nv.ndiags ? nv.diags[0].message : nv.log ? nv.log : "no log");
		nvrtc_output_free(&nv);
		return st;
	}
	st = gpu_module_load(g, nv.cubin, &c.mod);
	nvrtc_output_free(&nv);
	if (st)
		return st;
	if ((st = gpu_event_create(g, &c.start)) || (st = gpu_event_create(g, &c.end)))
		goto out;

	cal_phase(&c, "calibrate: copy bandwidth", CAL_PHASE_LIMIT_S);
	if ((st = measure_copy(&c, &out->copy_gbps)))
		goto out;
	cal_phase(&c, "calibrate: f32 FMA throughput", CAL_PHASE_LIMIT_S);
	if ((st = measure_fma(&c, &out->fma_tflops)))
		goto out;
	if (c.info->cc_major >= 7) {
		cal_phase(&c, "calibrate: f16 tensor throughput", CAL_PHASE_LIMIT_S);
		if ((st = measure_tensor(&c, &out->tensor_tflops)))
			goto out;
	} else {
		cal_log(&c, "f16 tensor: not measured, sm_%d has no tensor cores", arch);
	}
	out->measured_at = wall_clock();
	st = gpu_sync(g);
out:
	gpu_event_destroy(g, c.start);
	gpu_event_destroy(g, c.end);
	gpu_module_unload(g, c.mod);
	return st;
}

enum kbx_status calibrate_device(int ordinal, const struct run_events *progress, struct calibration *out)
{
	struct gpu *g = NULL;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if ((st = gpu_open(ordinal, &g)))
		return st;
	st = calibrate_run(g, progress, out);
	gpu_close(g);
	return st;
}
