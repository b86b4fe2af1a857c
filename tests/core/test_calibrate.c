/*
 * Tests for core/calibrate.c (fractions, formatting, --device parsing, the annotator, compiling
 * the kernels), the calibration's JSON in core/events.c, the calibrate request in core/worker.c
 * (this binary stands in for `kbx worker`) and the UUID format of core/gpu.c. Measuring needs a
 * GPU: tests/gpu/calibrate.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/calibrate.h"
#include "core/util.h"
#include "core/worker.h"

static char self[4096];

static struct calibration sample(void)
{
	struct calibration c;

	memset(&c, 0, sizeof(c));
	snprintf(c.gpu_name, sizeof(c.gpu_name), "NVIDIA H200");
	snprintf(c.gpu_uuid, sizeof(c.gpu_uuid), "GPU-00112233-4455-6677-8899-aabbccddeeff");
	c.copy_gbps = 4000;
	c.fma_tflops = 60;
	c.tensor_tflops = 500;
	c.peak_gbps = 4800;
	c.measured_at = 1.7e9 + 0.25;
	snprintf(c.kbx_version, sizeof(c.kbx_version), "1.2.3");
	return c;
}

static void cal_eq(const struct calibration *a, const struct calibration *b)
{
	assert_string_equal(a->gpu_name, b->gpu_name);
	assert_string_equal(a->gpu_uuid, b->gpu_uuid);
	assert_true(a->copy_gbps == b->copy_gbps);
	assert_true(a->fma_tflops == b->fma_tflops);
	assert_true(a->tensor_tflops == b->tensor_tflops);
	assert_true(a->peak_gbps == b->peak_gbps);
	assert_true(a->measured_at == b->measured_at);
	assert_string_equal(a->kbx_version, b->kbx_version);
}

/* ---- fractions and formatting ------------------------------------------------------------ */

static void test_fraction(void **state)
{
	(void)state;
	assert_true(calibrate_fraction(3000, 4000) == 0.75);
	assert_true(calibrate_fraction(5000, 4000) == 1.25);    /* above the calibration: said as it is */
	assert_true(calibrate_fraction(0, 4000) < 0);
	assert_true(calibrate_fraction(-1, 4000) < 0);
	assert_true(calibrate_fraction(3000, 0) < 0);
	assert_true(calibrate_fraction(3000, -1) < 0);
	assert_true(calibrate_fraction(NAN, 4000) < 0);
	assert_true(calibrate_fraction(3000, NAN) < 0);
	assert_true(calibrate_fraction(INFINITY, 4000) < 0);
	assert_true(calibrate_fraction(3000, INFINITY) < 0);
}

static void test_format_rate(void **state)
{
	char b[48];

	(void)state;
	calibrate_format_rate(b, sizeof(b), 3012, 0.78);
	assert_string_equal(b, "3012 (78%)");
	calibrate_format_rate(b, sizeof(b), 3012, 0.7849);
	assert_string_equal(b, "3012 (78%)");
	calibrate_format_rate(b, sizeof(b), 41.23, 0.075);
	assert_string_equal(b, "41.23 (7.5%)");
	calibrate_format_rate(b, sizeof(b), 41.23, 0.0996);
	assert_string_equal(b, "41.23 (10%)");
	calibrate_format_rate(b, sizeof(b), 0.01, 0.0000123);
	assert_string_equal(b, "0.01 (<0.1%)");
	calibrate_format_rate(b, sizeof(b), 5012.5, 1.253);
	assert_string_equal(b, "5012 (125%)");
	/* no fraction: the value alone, as before calibrations */
	calibrate_format_rate(b, sizeof(b), 3012, -1);
	assert_string_equal(b, "3012");
	calibrate_format_rate(b, sizeof(b), 3012, 0);
	assert_string_equal(b, "3012");
	calibrate_format_rate(b, sizeof(b), 3012, NAN);
	assert_string_equal(b, "3012");
	calibrate_format_rate(b, sizeof(b), 3012, INFINITY);
	assert_string_equal(b, "3012");
	calibrate_format_rate(b, sizeof(b), 1234567, 0.5);
	assert_string_equal(b, "1.235e+06 (50%)");
	/* no value */
	calibrate_format_rate(b, sizeof(b), -1, 0.5);
	assert_string_equal(b, "-");
	calibrate_format_rate(b, sizeof(b), NAN, 0.5);
	assert_string_equal(b, "-");
	calibrate_format_rate(b, sizeof(b), INFINITY, -1);
	assert_string_equal(b, "-");
	calibrate_format_rate(b, sizeof(b), 0, -1);
	assert_string_equal(b, "0");
	/* short buffers are cut, not overrun */
	memset(b, 'x', sizeof(b));
	calibrate_format_rate(b, 5, 3012, 0.78);
	assert_string_equal(b, "3012");
	assert_int_equal(b[5], 'x');
	calibrate_format_rate(b, 1, 3012, 0.78);
	assert_string_equal(b, "");
	b[0] = 'q';
	calibrate_format_rate(b, 0, 3012, 0.78);
	assert_int_equal(b[0], 'q');
}

static void test_parse_device(void **state)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "0x1", "1e3", "1.0", "1024", "99999999999999999999999", "abc", "1a",
		"\xd9\xa3", "0,1", "--device", "\t", "1\n",
	};
	int d = 42;

	(void)state;
	assert_int_equal(calibrate_parse_device("0", &d), KBX_OK);
	assert_int_equal(d, 0);
	assert_int_equal(calibrate_parse_device("7", &d), KBX_OK);
	assert_int_equal(d, 7);
	assert_int_equal(calibrate_parse_device("007", &d), KBX_OK);
	assert_int_equal(d, 7);
	assert_int_equal(calibrate_parse_device("1023", &d), KBX_OK);
	assert_int_equal(d, 1023);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = 42;
		if (calibrate_parse_device(bad[i], &d) != KBX_EPARSE)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(d, 0);
		assert_non_null(strstr(kbx_last_error(), "CUDA device number"));
	}
	assert_int_equal(calibrate_parse_device(NULL, &d), KBX_EPARSE);
	/* garbage of every byte value and length */
	srand(7);
	for (int i = 0; i < 2000; i++) {
		char buf[16];
		int n = rand() % 15;

		for (int k = 0; k < n; k++)
			buf[k] = (char)(1 + rand() % 255);
		buf[n] = '\0';
		if (calibrate_parse_device(buf, &d) == KBX_OK)
			assert_true(d >= 0 && d <= 1023 && n > 0 && strspn(buf, "0123456789") == (size_t)n);
	}
}

static void test_task_tensor(void **state)
{
	struct task_arg args[3];
	struct task t;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(args, 0, sizeof(args));
	t.args = args;
	t.nargs = 3;
	args[0] = (struct task_arg){ .name = "x", .dir = ARG_IN, .dtype = DT_F32 };
	args[1] = (struct task_arg){ .name = "y", .dir = ARG_OUT, .dtype = DT_F32 };
	args[2] = (struct task_arg){ .name = "alpha", .dir = ARG_SCALAR, .dtype = DT_F16 };
	assert_int_equal(calibrate_task_tensor(&t), 0);     /* a half scalar is not half data */
	args[0].dtype = DT_F16;
	assert_int_equal(calibrate_task_tensor(&t), 1);
	args[0].dtype = DT_I8;
	args[1].dir = ARG_INOUT;
	args[1].dtype = DT_BF16;
	assert_int_equal(calibrate_task_tensor(&t), 1);
	assert_int_equal(calibrate_task_tensor(NULL), 0);
}

static void test_annotate(void **state)
{
	struct calibration c = sample();
	struct perf_result p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.gbps = 3000;
	p.tflops = 30;
	calibrate_annotate(&c, 0, &p);
	assert_true(p.bw_fraction == 0.75);
	assert_true(p.flop_fraction == 0.5);
	calibrate_annotate(&c, 1, &p);
	assert_true(p.flop_fraction == 30.0 / 500);
	/* no tensor figure: no fraction for a half task, rather than one against the f32 peak */
	c.tensor_tflops = -1;
	calibrate_annotate(&c, 1, &p);
	assert_true(p.flop_fraction < 0);
	assert_true(p.bw_fraction == 0.75);
	/* unknown rates */
	p.gbps = -1;
	p.tflops = NAN;
	calibrate_annotate(&c, 0, &p);
	assert_true(p.bw_fraction < 0 && p.flop_fraction < 0);
	/* no calibration */
	p.gbps = 3000;
	p.tflops = 30;
	calibrate_annotate(NULL, 0, &p);
	assert_true(p.bw_fraction < 0 && p.flop_fraction < 0);
}

/* ---- the annotator ------------------------------------------------------------------------ */

struct got {
	int phases, compiles, cases, perfs, logs, dones;
	double bw, flop;
	char input_size[64];
};

static void g_phase(void *ctx, const char *what, double limit_s)
{
	(void)what;
	(void)limit_s;
	((struct got *)ctx)->phases++;
}

static void g_compile(void *ctx, const struct compile_result *c)
{
	(void)c;
	((struct got *)ctx)->compiles++;
}

static void g_case(void *ctx, const struct case_result *c)
{
	(void)c;
	((struct got *)ctx)->cases++;
}

static void g_perf(void *ctx, const struct perf_result *p)
{
	struct got *g = ctx;

	g->perfs++;
	g->bw = p->bw_fraction;
	g->flop = p->flop_fraction;
	snprintf(g->input_size, sizeof(g->input_size), "%s", p->input_size ? p->input_size : "");
}

static void g_log(void *ctx, const char *text)
{
	(void)text;
	((struct got *)ctx)->logs++;
}

static void g_done(void *ctx, const struct run_summary *s)
{
	(void)s;
	((struct got *)ctx)->dones++;
}

static void test_annotator(void **state)
{
	struct got g = { 0 };
	struct run_events to = { .ctx = &g, .phase = g_phase, .compile = g_compile, .case_done = g_case,
				 .perf_row = g_perf, .log = g_log, .done = g_done };
	struct run_events only_done = { .ctx = &g, .done = g_done };
	struct calibration c = sample();
	struct calibrate_annotator a = { &to, &c, 1 };
	struct run_events ev = calibrate_annotator_events(&a);
	struct compile_result cr;
	struct case_result cs;
	struct perf_result p;
	struct run_summary s;

	(void)state;
	memset(&cr, 0, sizeof(cr));
	memset(&cs, 0, sizeof(cs));
	memset(&p, 0, sizeof(p));
	memset(&s, 0, sizeof(s));
	p.gbps = 2000;
	p.tflops = 250;
	p.input_size = "[4096]";
	ev.phase(ev.ctx, "x", 1);
	ev.compile(ev.ctx, &cr);
	ev.case_done(ev.ctx, &cs);
	ev.perf_row(ev.ctx, &p);
	ev.log(ev.ctx, "note");
	ev.done(ev.ctx, &s);
	assert_int_equal(g.phases + g.compiles + g.cases + g.perfs + g.logs + g.dones, 6);
	assert_true(g.bw == 0.5);
	assert_true(g.flop == 0.5);
	assert_string_equal(g.input_size, "[4096]");
	/* the engine's struct is left as it was */
	assert_true(p.bw_fraction == 0 && p.flop_fraction == 0);

	/* no calibration: the fractions are said to be unknown, not left at 0 */
	a.cal = NULL;
	ev.perf_row(ev.ctx, &p);
	assert_true(g.bw < 0 && g.flop < 0);

	/* a receiver without most callbacks, and none at all */
	a.to = &only_done;
	ev.phase(ev.ctx, "x", 1);
	ev.perf_row(ev.ctx, &p);
	ev.done(ev.ctx, &s);
	assert_int_equal(g.dones, 2);
	a.to = NULL;
	ev.perf_row(ev.ctx, &p);
	ev.done(ev.ctx, &s);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

struct cal_seen {
	int n;
	struct calibration c;
};

static void on_cal(void *ctx, const struct calibration *c)
{
	struct cal_seen *s = ctx;

	s->n++;
	s->c = *c;
}

static void test_json_round_trip(void **state)
{
	struct calibration c = sample(), back;
	struct run_events none = { 0 };
	struct cal_seen seen = { 0 };
	char *text = NULL, *line, *json;
	size_t len = 0;
	FILE *fp;

	(void)state;
	c.tensor_tflops = -1;   /* not measured travels as itself */
	json = calibration_to_json(&c);
	assert_int_equal(calibration_from_json(json, &back), KBX_OK);
	cal_eq(&c, &back);
	free(json);

	/* as a worker event: one line, read back by dispatch_ex, skipped by dispatch */
	fp = open_memstream(&text, &len);
	assert_non_null(fp);
	events_json_calibration(fp, &c);
	fclose(fp);
	assert_non_null(strchr(text, '\n'));
	assert_ptr_equal(strchr(text, '\n'), text + len - 1);
	line = xstrndup(text, len - 1);
	assert_int_equal(events_json_dispatch_ex(line, &none, on_cal, &seen), KBX_OK);
	assert_int_equal(seen.n, 1);
	cal_eq(&c, &seen.c);
	assert_int_equal(events_json_dispatch(line, &none), KBX_OK);
	assert_int_equal(events_json_dispatch_ex(line, &none, NULL, NULL), KBX_OK);
	assert_int_equal(seen.n, 1);
	free(line);
	free(text);

	/* names that do not fit or are not UTF-8 */
	memset(c.gpu_name, 'A', sizeof(c.gpu_name));
	memcpy(c.gpu_uuid, "\xff\xfe bad", 7);
	json = calibration_to_json(&c);
	assert_int_equal(calibration_from_json(json, &back), KBX_OK);
	assert_int_equal(strlen(back.gpu_name), sizeof(back.gpu_name) - 1);
	assert_non_null(strstr(back.gpu_uuid, "\xef\xbf\xbd"));
	free(json);
}

static void test_json_malformed(void **state)
{
	static const char *const bad[] = {
		NULL, "", "[]", "{", "null", "{}",
		"{\"gpu_name\":\"\",\"gpu_uuid\":\"\",\"copy_gbps\":1,\"fma_tflops\":1,\"tensor_tflops\":1,"
		"\"peak_gbps\":1,\"measured_at\":1,\"kbx_version\":\"x\"}",
		"{\"gpu_name\":\"g\",\"gpu_uuid\":\"\",\"copy_gbps\":\"fast\",\"fma_tflops\":1,\"tensor_tflops\":1,"
		"\"peak_gbps\":1,\"measured_at\":1,\"kbx_version\":\"x\"}",
		"{\"gpu_name\":\"g\",\"gpu_uuid\":3,\"copy_gbps\":1,\"fma_tflops\":1,\"tensor_tflops\":1,"
		"\"peak_gbps\":1,\"measured_at\":1,\"kbx_version\":\"x\"}",
		"{\"gpu_name\":\"g\",\"gpu_uuid\":\"\",\"copy_gbps\":1,\"fma_tflops\":1,\"tensor_tflops\":1,"
		"\"peak_gbps\":1,\"measured_at\":1}",
		"{\"gpu_name\":\"g\",\"gpu_uuid\":\"\",\"copy_gbps\":1,\"fma_tflops\":[],\"tensor_tflops\":1,"
		"\"peak_gbps\":1,\"measured_at\":1,\"kbx_version\":\"x\"}",
	};
	struct calibration c = sample(), back;
	struct run_events none = { 0 };
	struct cal_seen seen = { 0 };
	char *good;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (calibration_from_json(bad[i], &back) != KBX_EPARSE)
			fail_msg("accepted '%s'", bad[i] ? bad[i] : "(null)");
		assert_string_equal(back.gpu_name, "");
	}
	assert_int_equal(events_json_dispatch_ex("{\"ev\":\"calibration\",\"gpu_name\":\"g\"}", &none, on_cal, &seen),
			 KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "'calibration' worker event"));
	assert_int_equal(seen.n, 0);

	/* every prefix, and every byte flipped, of a good event: an error or a calibration, no crash */
	good = calibration_to_json(&c);
	for (size_t n = 0; n < strlen(good); n++) {
		char *cut = xstrndup(good, n);

		calibration_from_json(cut, &back);
		for (size_t k = 0; k < n; k++) {
			char saved = cut[k];

			cut[k] = (char)(saved ^ 0x5a);
			calibration_from_json(cut, &back);
			cut[k] = saved;
		}
		free(cut);
	}
	free(good);
}

static void test_perf_fractions_json(void **state)
{
	struct perf_result p, back;
	json_t *o;
	char *t, *edited;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.input_size = "[1]";
	p.golden_ms = -1;
	p.gbps = 3000;
	p.tflops = 1;
	p.bw_fraction = 0.75;
	p.flop_fraction = 1.5;
	t = perf_result_to_json(&p);
	assert_int_equal(perf_result_from_json(t, &back), KBX_OK);
	assert_true(back.bw_fraction == 0.75 && back.flop_fraction == 1.5);
	perf_result_free(&back);
	free(t);

	/* none: null on the wire, -1 back */
	p.bw_fraction = -1;
	p.flop_fraction = 0;
	t = perf_result_to_json(&p);
	assert_non_null(strstr(t, "\"bw_fraction\":null"));
	assert_non_null(strstr(t, "\"flop_fraction\":null"));
	assert_int_equal(perf_result_from_json(t, &back), KBX_OK);
	assert_true(back.bw_fraction < 0 && back.flop_fraction < 0);
	perf_result_free(&back);

	/* a row written before calibrations existed has no such keys */
	o = json_loads(t, 0, NULL);
	json_object_del(o, "bw_fraction");
	json_object_del(o, "flop_fraction");
	edited = json_dumps(o, JSON_COMPACT);
	assert_int_equal(perf_result_from_json(edited, &back), KBX_OK);
	assert_true(back.bw_fraction < 0 && back.flop_fraction < 0);
	perf_result_free(&back);
	free(edited);

	/* wrong types and values */
	for (int i = 0; i < 4; i++) {
		json_t *v = i == 0 ? json_string("half") : i == 1 ? json_real(-0.5) : i == 2 ? json_true() : json_array();

		json_object_set_new(o, i % 2 ? "flop_fraction" : "bw_fraction", v);
		edited = json_dumps(o, JSON_COMPACT);
		assert_int_equal(perf_result_from_json(edited, &back), KBX_EPARSE);
		free(edited);
		json_object_set_new(o, "bw_fraction", json_null());
		json_object_set_new(o, "flop_fraction", json_null());
	}
	json_decref(o);
	free(t);
}

static void test_uuid_format(void **state)
{
	unsigned char b[16];
	char out[64];

	(void)state;
	for (int i = 0; i < 16; i++)
		b[i] = (unsigned char)(i * 0x11);
	gpu_format_uuid(b, out, sizeof(out));
	assert_string_equal(out, "GPU-00112233-4455-6677-8899-aabbccddeeff");
	memset(b, 0xff, sizeof(b));
	gpu_format_uuid(b, out, sizeof(out));
	assert_string_equal(out, "GPU-ffffffff-ffff-ffff-ffff-ffffffffffff");
	gpu_format_uuid(b, out, 8);
	assert_string_equal(out, "GPU-fff");
}

/* ---- compiling (NVRTC, no GPU) ------------------------------------------------------------ */

static void compile_for(int arch)
{
	struct nvrtc_output out;
	const char *kernels[] = { "kbx_cal_copy_stride", "kbx_cal_copy_flat", "kbx_cal_fma", "kbx_cal_fill_half",
				  "kbx_cal_wmma" };

	if (!nvrtc_built())
		skip();
	if (calibrate_compile(arch, &out) != KBX_OK)
		fail_msg("calibrate_compile sm_%d: %s", arch, kbx_last_error());
	if (!out.ok)
		fail_msg("the calibration kernels do not compile for sm_%d:\n%s", arch, out.log ? out.log : "");
	assert_non_null(out.cubin);
	assert_true(out.cubin_size > 1000);
	/* no warnings either: a dropped result would show as "set but never used" first */
	for (int i = 0; i < out.ndiags; i++)
		fail_msg("sm_%d: %s line %d: %s", arch, out.diags[i].severity, out.diags[i].line, out.diags[i].message);
	/* the kernels are there under their C names (the cubin's string table holds them) */
	for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
		assert_non_null(memmem(out.cubin, out.cubin_size, kernels[k], strlen(kernels[k]) + 1));
	nvrtc_output_free(&out);
}

static void test_compile_sm90(void **state)
{
	(void)state;
	compile_for(90);
}

static void test_compile_sm80(void **state)
{
	(void)state;
	compile_for(80);
}

static void test_source_includes_ok(void **state)
{
	char *why = NULL;

	(void)state;
	assert_int_equal(nvrtc_source_includes_ok(calibrate_source(), &why), 1);
	free(why);
}

/* Without a device the worker's side says so; with one, this would measure (tests/gpu does). */
static void test_device_without_gpu(void **state)
{
	struct gpu_info info;
	struct calibration c;
	enum kbx_status st;

	(void)state;
	if (gpu_probe(0, &info, NULL) == KBX_OK)
		skip();
	st = calibrate_device(0, NULL, &c);
	assert_true(st == KBX_ENODEVICE || st == KBX_ENOGPUBUILD);
	assert_true(strlen(kbx_last_error()) > 10);
	assert_string_equal(c.gpu_name, "");
}

/* ---- the request and worker_calibrate, with this binary as the worker --------------------- */

static int fake_worker(void)
{
	const char *mode = getenv("FAKE_MODE");
	struct run_events ev = events_json_writer(stdout);
	struct worker_request req;
	struct run_summary s;
	struct calibration c = sample();
	char *line = NULL;
	size_t cap = 0;

	if (getline(&line, &cap, stdin) < 0 || worker_request_from_json(line, &req))
		return 2;
	free(line);
	memset(&s, 0, sizeof(s));
	if (!req.calibrate) {
		s.verdict = V_ERROR;
		s.message = "not a calibrate request";
		ev.done(ev.ctx, &s);
		return 1;
	}
	c.copy_gbps = 1000 + req.device;
	ev.phase(ev.ctx, "calibrate: copy bandwidth", 5);
	ev.log(ev.ctx, "copy: details");
	if (!strcmp(mode, "ok")) {
		events_json_calibration(stdout, &c);
		s.verdict = V_PASS;
	} else if (!strcmp(mode, "nodevice")) {
		s.verdict = V_NOT_RUN;
		s.message = "no CUDA device: the driver sees zero devices";
	} else if (!strcmp(mode, "nocal")) {
		s.verdict = V_PASS;
	} else if (!strcmp(mode, "failed")) {
		events_json_calibration(stdout, &c);   /* a figure, then a failure: not a calibration */
		s.verdict = V_ERROR;
		s.message = "f32 FMA throughput: cuLaunchKernel: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
	} else if (!strcmp(mode, "hang")) {
		sleep(60);
	} else if (!strcmp(mode, "crash")) {
		fflush(stdout);
		abort();
	}
	ev.done(ev.ctx, &s);
	worker_request_free(&req);
	return 0;
}

struct progress_seen {
	int phases, logs;
};

static void p_phase(void *ctx, const char *what, double limit_s)
{
	(void)what;
	(void)limit_s;
	((struct progress_seen *)ctx)->phases++;
}

static void p_log(void *ctx, const char *text)
{
	(void)text;
	((struct progress_seen *)ctx)->logs++;
}

static enum kbx_status calibrate_mode(const char *mode, int device, struct calibration *c, struct progress_seen *ps)
{
	struct run_events progress = { .ctx = ps, .phase = p_phase, .log = p_log };

	memset(ps, 0, sizeof(*ps));
	setenv("FAKE_MODE", mode, 1);
	return worker_calibrate(self, device, &progress, c);
}

static void test_worker_calibrate(void **state)
{
	struct calibration c, want = sample();
	struct progress_seen ps;

	(void)state;
	assert_int_equal(calibrate_mode("ok", 3, &c, &ps), KBX_OK);
	want.copy_gbps = 1003;
	cal_eq(&want, &c);
	assert_int_equal(ps.phases, 1);
	assert_int_equal(ps.logs, 1);

	assert_int_equal(calibrate_mode("nodevice", 0, &c, &ps), KBX_ENODEVICE);
	assert_non_null(strstr(kbx_last_error(), "zero devices"));
	assert_string_equal(c.gpu_name, "");

	assert_int_equal(calibrate_mode("nocal", 0, &c, &ps), KBX_EWORKER);
	assert_non_null(strstr(kbx_last_error(), "no calibration"));

	assert_int_equal(calibrate_mode("failed", 0, &c, &ps), KBX_EWORKER);
	assert_non_null(strstr(kbx_last_error(), "LAUNCH_OUT_OF_RESOURCES"));
	assert_string_equal(c.gpu_name, "");

	assert_int_equal(calibrate_mode("crash", 0, &c, &ps), KBX_EWORKER);
	assert_non_null(strstr(kbx_last_error(), "signal"));

	assert_int_equal(calibrate_mode("hang", 0, &c, &ps), KBX_ETIMEOUT);
	assert_non_null(strstr(kbx_last_error(), "calibrate: copy bandwidth"));
}

static void test_request_json(void **state)
{
	static const char *const bad_ops[] = {
		"{\"op\":\"explode\"}", "{\"op\":3}", "{\"op\":null}", "{\"op\":\"\"}", "{\"op\":[\"calibrate\"]}",
	};
	struct worker_request r, back;
	char *t;

	(void)state;
	worker_request_default(&r);
	r.calibrate = 1;
	r.device = 5;
	t = worker_request_to_json(&r);
	assert_non_null(strstr(t, "\"op\":\"calibrate\""));
	assert_int_equal(worker_request_from_json(t, &back), KBX_OK);
	assert_int_equal(back.calibrate, 1);
	assert_int_equal(back.device, 5);
	assert_null(back.calib_db);
	worker_request_free(&back);
	free(t);

	/* a run request carries where to read the calibration */
	worker_request_default(&r);
	r.task_id = "Activation/gelu";
	r.source = "x";
	r.calib_db = "/tmp/h.db";
	t = worker_request_to_json(&r);
	assert_null(strstr(t, "\"op\""));
	assert_int_equal(worker_request_from_json(t, &back), KBX_OK);
	assert_int_equal(back.calibrate, 0);
	assert_string_equal(back.calib_db, "/tmp/h.db");
	worker_request_free(&back);
	free(t);
	assert_int_equal(worker_request_from_json("{\"op\":\"run\",\"task\":\"a/b\",\"source\":\"\"}", &back), KBX_OK);
	assert_int_equal(back.calibrate, 0);
	worker_request_free(&back);

	/* a run still needs its task and source; a calibration needs neither */
	assert_int_equal(worker_request_from_json("{\"op\":\"run\"}", &back), KBX_EPARSE);
	assert_int_equal(worker_request_from_json("{\"op\":\"calibrate\"}", &back), KBX_OK);
	worker_request_free(&back);
	for (size_t i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
		if (worker_request_from_json(bad_ops[i], &back) != KBX_EPARSE)
			fail_msg("accepted '%s'", bad_ops[i]);
		assert_null(back.task_id);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fraction),
		cmocka_unit_test(test_format_rate),
		cmocka_unit_test(test_parse_device),
		cmocka_unit_test(test_task_tensor),
		cmocka_unit_test(test_annotate),
		cmocka_unit_test(test_annotator),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_malformed),
		cmocka_unit_test(test_perf_fractions_json),
		cmocka_unit_test(test_uuid_format),
		cmocka_unit_test(test_compile_sm90),
		cmocka_unit_test(test_compile_sm80),
		cmocka_unit_test(test_source_includes_ok),
		cmocka_unit_test(test_device_without_gpu),
		cmocka_unit_test(test_worker_calibrate),
		cmocka_unit_test(test_request_json),
	};
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "worker"))
		return fake_worker();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
