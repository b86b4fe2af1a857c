/*
 * Tests for core/ceiling.c: the datasheet peaks per architecture and unit, the unit a task's
 * dtypes allow, the byte floor with [perf] partial_inputs, and the verdict arithmetic of
 * ceiling_check on the timings of honest kernels and of the adversarial ones (no GPU needed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/ceiling.h"
#include "core/problem.h"
#include "core/task.h"

/* An H200 as the driver describes it: 132 SMs, 1980 MHz maximum clock, 4814 GB/s. */
static struct gpu_info h200(void)
{
	struct gpu_info g;

	memset(&g, 0, sizeof(g));
	snprintf(g.name, sizeof(g.name), "NVIDIA H200");
	g.cc_major = 9;
	g.cc_minor = 0;
	g.sms = 132;
	g.sm_clock_khz = 1980000;
	g.peak_gbps = 4814;
	return g;
}

/* The H200's calibration of doc/timing.md. */
static struct calibration h200_cal(void)
{
	struct calibration c;

	memset(&c, 0, sizeof(c));
	c.copy_gbps = 4253;
	c.fma_tflops = 66.0;
	c.tensor_tflops = 648;
	return c;
}

static struct task *parse(const char *ini)
{
	struct task *t = NULL;

	if (task_parse_text(ini, "mem/task.ini", "Cat", "t", &t) != KBX_OK)
		fail_msg("task did not parse: %s", kbx_last_error());
	return t;
}

#define HEAD "[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"

static const char matmul_ini[] = HEAD
	"[args]\na = in f32 [m, k]\nb = in f32 [k, n]\nc = out f32 [m, n]\nm = i64\nk = i64\nn = i64\n"
	"[inputs]\na = randn\nb = randn\n[case.one]\nm = 2\nk = 2\nn = 2\n"
	"[perf]\nm = 4096\nk = 4096\nn = 4096\na = uniform(0, 1)\nb = uniform(0, 1)\n"
	"bytes = (m * k + k * n + m * n) * 4\nflops = 2 * m * n * k\n";

static const char sum_ini[] = HEAD
	"[args]\nx = in f32 [n]\ny = out f32 [1]\nn = i64\n"
	"[inputs]\nx = randn\n[case.one]\nn = 4\n"
	"[perf]\nn = pow2(12..27)\nx = uniform(0, 1)\nbytes = (n + 1) * 4\nflops = n\n";

static const char select_ini[] = HEAD
	"[args]\nx = in f32 [r, w]\nidx = in i64 [k]\ny = out f32 [k, w]\nr = i64\nw = i64\nk = i64\n"
	"[inputs]\nx = randn\n[case.one]\nr = 2\nw = 2\nk = 1\nidx = values(1)\n"
	"[perf]\nr = 1048576\nw = 64\nk = 1024\nidx = randint(0, 1048576)\n"
	"partial_inputs = x\nflop_ceiling = off: counts nothing\nflops = r * w\n";

static const char fp16_ini[] = HEAD
	"[args]\na = in f16 [n]\nb = in i8 [n]\ny = out f32 [n]\nn = i64\n[inputs]\na = randn\nb = randint(0, 3)\n[case.one]\nn = 1\n";

static const char index_ini[] = HEAD
	"[args]\nx = in f64 [n]\ni = in i64 [n]\ny = out f64 [n]\nn = i64\n[inputs]\nx = randn\ni = randint(0, 1)\n[case.one]\nn = 1\n";

static const char ints_ini[] = HEAD
	"[args]\nx = in i32 [n]\ny = out i32 [n]\nn = i64\n[inputs]\nx = randint(0, 3)\n[case.one]\nn = 1\n";

static void test_per_clock(void **state)
{
	(void)state;
	/* sm_90 */
	assert_true(ceiling_flops_per_clock(9, 0, UNIT_F16_TENSOR) == 4096);
	assert_true(ceiling_flops_per_clock(9, 0, UNIT_I8_TENSOR) == 8192);
	assert_true(ceiling_flops_per_clock(9, 0, UNIT_TF32_TENSOR) == 2048);
	/* sm_89 falls in the sm_86 row, sm_80 has its own, unknown newer ones the generous last */
	assert_true(ceiling_flops_per_clock(8, 9, UNIT_F16_TENSOR) == 1024);
	assert_true(ceiling_flops_per_clock(8, 0, UNIT_F64_TENSOR) == 128);
	assert_true(ceiling_flops_per_clock(8, 6, UNIT_F64_TENSOR) == 0);
	assert_true(ceiling_flops_per_clock(12, 0, UNIT_F16_TENSOR) == 8192);
	assert_true(ceiling_flops_per_clock(9, 0, UNIT_COUNT) == 0);
	assert_string_equal(ceiling_unit_name(UNIT_TF32_TENSOR), "tf32 tensor");
}

static void test_datasheet_h200(void **state)
{
	struct gpu_info g = h200();
	double tf;

	(void)state;
	/* at the maximum clock, each at or above NVIDIA's figure, and not absurdly so */
	tf = ceiling_datasheet_tflops(&g, UNIT_F16_TENSOR);
	assert_true(tf >= 989 && tf < 1100);
	tf = ceiling_datasheet_tflops(&g, UNIT_I8_TENSOR);
	assert_true(tf >= 1979 && tf < 2200);
	tf = ceiling_datasheet_tflops(&g, UNIT_TF32_TENSOR);
	assert_true(tf >= 494 && tf < 550);
	tf = ceiling_datasheet_tflops(&g, UNIT_F64_TENSOR);
	assert_true(tf >= 66.9 && tf < 70);
	tf = ceiling_datasheet_tflops(&g, UNIT_F32);
	assert_true(tf >= 66.9 && tf < 70);
	/* unknown clock or SMs: no datasheet figure */
	g.sm_clock_khz = 0;
	assert_true(ceiling_datasheet_tflops(&g, UNIT_F16_TENSOR) == 0);
	assert_true(ceiling_datasheet_tflops(NULL, UNIT_F16_TENSOR) == 0);
}

static void test_units(void **state)
{
	struct gpu_info g = h200();
	struct task *t;
	double tf;

	(void)state;
	assert_int_equal(ceiling_dtype_unit(&g, DT_F32, &tf), UNIT_TF32_TENSOR);
	assert_int_equal(ceiling_dtype_unit(&g, DT_BF16, &tf), UNIT_F16_TENSOR);
	assert_int_equal(ceiling_dtype_unit(&g, DT_F64, &tf), UNIT_F64_TENSOR);
	/* before sm_80 there is no TF32: the f32 FMA */
	g.cc_major = 7;
	assert_int_equal(ceiling_dtype_unit(&g, DT_F32, &tf), UNIT_F32);
	g = h200();
	/* f16 next to i8: the int8 tensor peak is the higher */
	t = parse(fp16_ini);
	assert_int_equal(ceiling_task_unit(t, &g, &tf), UNIT_I8_TENSOR);
	task_free(t);
	/* an i64 index next to f64 data is not what the arithmetic runs on */
	t = parse(index_ini);
	assert_int_equal(ceiling_task_unit(t, &g, &tf), UNIT_F64_TENSOR);
	task_free(t);
	/* integers alone: the fastest unit bounds them */
	t = parse(ints_ini);
	assert_int_equal(ceiling_task_unit(t, &g, &tf), UNIT_I8_TENSOR);
	task_free(t);
}

static void test_init_sources(void **state)
{
	struct gpu_info g = h200();
	struct calibration cal = h200_cal();
	struct task *t = parse(matmul_ini);
	struct ceiling c;

	(void)state;
	/* the theoretical bandwidth beats the calibrated copy; the datasheet tf32 the f32 FMA */
	ceiling_init(&c, &g, &cal, t);
	assert_string_equal(c.gbps_from, "theoretical");
	assert_true(fabs(c.gbps - 4814 * CEILING_BW_MARGIN) < 1e-6);
	assert_int_equal(c.unit, UNIT_TF32_TENSOR);
	assert_string_equal(c.tflops_from, "datasheet");
	assert_true(c.tflops > 494 * CEILING_FLOP_MARGIN);
	/* without a datasheet (no clock, no bus figures) the calibration is the ceiling where it
	 * measured the unit; it measured no TF32 path, so f32 data gets no FLOP ceiling */
	g.sm_clock_khz = 0;
	g.peak_gbps = 0;
	ceiling_init(&c, &g, &cal, t);
	assert_string_equal(c.gbps_from, "calibrated copy");
	assert_true(fabs(c.gbps - 4253 * CEILING_BW_MARGIN) < 1e-6);
	assert_true(c.tflops == 0);
	task_free(t);
	t = parse(fp16_ini);
	ceiling_init(&c, &g, &cal, t);
	assert_int_equal(c.unit, UNIT_F16_TENSOR);
	assert_string_equal(c.tflops_from, "calibrated");
	assert_true(fabs(c.tflops - 648 * CEILING_FLOP_MARGIN) < 1e-6);
	/* with the datasheet, the datasheet's int8 peak is above the calibrated f16 one */
	g = h200();
	ceiling_init(&c, &g, &cal, t);
	assert_int_equal(c.unit, UNIT_I8_TENSOR);
	assert_string_equal(c.tflops_from, "datasheet");
	g.sm_clock_khz = 0;
	g.peak_gbps = 0;
	/* neither: no ceiling at all */
	ceiling_init(&c, &g, NULL, t);
	assert_true(c.gbps == 0 && c.tflops == 0);
	task_free(t);
}

static void test_min_bytes(void **state)
{
	struct task *t = parse(sum_ini);
	struct problem pb;

	(void)state;
	/* the input is read and the one output written: 2^27 * 4 + 4 (the old check counted 4) */
	assert_int_equal(problem_from_perf(t, 15, &pb), KBX_OK);
	assert_true(ceiling_min_bytes(t, &pb) == 4.0 * (1 << 27) + 4);
	problem_free(&pb);
	task_free(t);
	/* index_select: the source need not be read in full; the index must */
	t = parse(select_ini);
	assert_int_equal(t->perf.npartial_inputs, 1);
	assert_true(ceiling_partial(t, task_find_arg(t, "x")));
	assert_false(ceiling_partial(t, task_find_arg(t, "idx")));
	assert_int_equal(problem_from_perf(t, 0, &pb), KBX_OK);
	assert_true(ceiling_min_bytes(t, &pb) == 1024.0 * 8 + 1024.0 * 64 * 4);
	problem_free(&pb);
	task_free(t);
}

static void test_parse_errors(void **state)
{
	struct task *t = NULL;

	(void)state;
	assert_int_not_equal(task_parse_text(HEAD "[args]\nx = in f32 [n]\ny = out f32 [n]\nn = i64\n[inputs]\nx = randn\n[case.one]\nn = 1\n"
					     "[perf]\nn = 4\npartial_inputs = y\n", "mem/task.ini", "Cat", "t", &t), KBX_OK);
	assert_non_null(strstr(kbx_last_error(), "'y' is not an 'in' or 'inout' buffer"));
	assert_int_not_equal(task_parse_text(HEAD "[args]\nx = in f32 [n]\ny = out f32 [n]\nn = i64\n[inputs]\nx = randn\n[case.one]\nn = 1\n"
					     "[perf]\nn = 4\nflop_ceiling = on\n", "mem/task.ini", "Cat", "t", &t), KBX_OK);
	assert_non_null(strstr(kbx_last_error(), "flop_ceiling in [perf]"));
	t = parse(select_ini);
	assert_string_equal(t->perf.flop_ceiling_off, "counts nothing");
	task_free(t);
}

static void test_check(void **state)
{
	struct gpu_info g = h200();
	struct calibration cal = h200_cal();
	struct task *mm = parse(matmul_ini), *sum = parse(sum_ini), *sel = parse(select_ini);
	struct ceiling c;
	struct problem pb;
	char why[512] = "";
	double bytes, flops;

	(void)state;
	ceiling_init(&c, &g, &cal, mm);
	assert_int_equal(problem_from_perf(mm, 0, &pb), KBX_OK);
	bytes = ceiling_min_bytes(mm, &pb);
	flops = pb.flops;
	/* 4096^3 f32 at 0.5 ms is 275 TFLOP/s: possible with split TF32; a replay at 0.045 ms
	 * (3,000 TFLOP/s on paper) is not, and says which ceiling */
	assert_int_equal(ceiling_check(&c, 0.5, bytes, flops, why, sizeof(why)), 0);
	assert_int_equal(ceiling_check(&c, 0.045, bytes, flops, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "TFLOP/s, above the ceiling"));
	assert_non_null(strstr(why, "tf32 tensor"));
	/* bandwidth: 201 MB in 0.03 ms is 6.7 TB/s, above 4814 x 1.15 */
	assert_int_equal(ceiling_check(&c, 0.03, bytes, -1, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "GB/s, above the ceiling of 5536 GB/s (theoretical 4814 GB/s x 1.15)"));
	problem_free(&pb);

	/* sum of 2^27 floats: 537 MB at 0.125 ms (4.3 TB/s) is an honest reduction; the 4-byte
	 * output alone would never trip, the input does at 0.05 ms (10.7 TB/s) */
	ceiling_init(&c, &g, &cal, sum);
	assert_int_equal(problem_from_perf(sum, 15, &pb), KBX_OK);
	bytes = ceiling_min_bytes(sum, &pb);
	assert_int_equal(ceiling_check(&c, 0.125, bytes, pb.flops, why, sizeof(why)), 0);
	assert_int_equal(ceiling_check(&c, 0.05, bytes, pb.flops, why, sizeof(why)), 1);
	assert_int_equal(ceiling_check(&c, 0.05, 4, pb.flops, why, sizeof(why)), 0);
	/* no timing, no verdict */
	assert_int_equal(ceiling_check(&c, 0, bytes, pb.flops, why, sizeof(why)), 0);
	assert_int_equal(ceiling_check(&c, NAN, bytes, pb.flops, why, sizeof(why)), 0);
	problem_free(&pb);

	/* flop_ceiling = off: any rate of the formula goes; the bytes floor still holds */
	ceiling_init(&c, &g, &cal, sel);
	assert_true(c.tflops == 0);
	assert_int_equal(problem_from_perf(sel, 0, &pb), KBX_OK);
	assert_int_equal(ceiling_check(&c, 1e-6, 0, pb.flops, why, sizeof(why)), 0);
	assert_int_equal(ceiling_check(&c, 1e-6, ceiling_min_bytes(sel, &pb), pb.flops, why, sizeof(why)), 1);
	problem_free(&pb);
	task_free(mm);
	task_free(sum);
	task_free(sel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_clock),
		cmocka_unit_test(test_datasheet_h200),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_init_sources),
		cmocka_unit_test(test_min_bytes),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
