/* Batch evaluation (core/eval.h): loading items, sharding, GPU lists, progress records and
 * resuming, scheduling over several (fake) workers, reports. No GPU needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/eval.h"
#include "core/result.h"
#include "core/util.h"

static struct catalogue cat;
static char tmp[] = "/tmp/kbx-test-eval-XXXXXX";

static int setup(void **state)
{
	const char *root = getenv("KBX_SRCDIR") ? getenv("KBX_SRCDIR") : KBX_SRCDIR;
	char *tasks = xasprintf("%s/tasks", root);

	(void)state;
	if (catalogue_load(tasks, &cat) != KBX_OK || !mkdtemp(tmp)) {
		free(tasks);
		return -1;
	}
	free(tasks);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmp);

	(void)state;
	catalogue_free(&cat);
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	return 0;
}

static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);

	assert_int_equal(write_file(path, text, strlen(text)), KBX_OK);
	free(path);
}

static void test_jsonl(void **state)
{
	struct eval_item *it;
	int n;
	char *path = xasprintf("%s/p.jsonl", tmp);

	(void)state;
	put("p.jsonl", "{\"file\": \"Activation/gelu.py\", \"predict\": \"Sure:\\n```cuda\\nKERNEL A\\n```\\nbye\"}\n"
		       "\n"
		       "{\"file\": \"Reduce/sum.py\", \"predict\": \"no fences\"}\n"
		       "{\"file\": \"Nope/none.py\", \"predict\": \"x\"}\n");
	assert_int_equal(eval_items_load(path, &cat, &it, &n), KBX_OK);
	assert_int_equal(n, 3);
	assert_string_equal(it[0].id, "line 1");
	assert_string_equal(it[0].task_id, "Activation/gelu");
	assert_string_equal(it[0].source, "KERNEL A\n");
	assert_string_equal(it[1].id, "line 3");
	assert_string_equal(it[1].source, "no fences");
	assert_null(it[2].task_id);
	assert_string_equal(it[2].task_hint, "Nope/none.py");
	assert_int_equal(strlen(it[0].sha), 64);
	eval_items_free(it, n);

	put("bad.jsonl", "{\"file\": \"a.py\", \"predict\": \"x\"}\n[1, 2]\n");
	free(path);
	path = xasprintf("%s/bad.jsonl", tmp);
	assert_int_equal(eval_items_load(path, &cat, &it, &n), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "line 2"));
	put("bad.jsonl", "{\"file\": 3, \"predict\": \"x\"}\n");
	assert_int_equal(eval_items_load(path, &cat, &it, &n), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "\"file\""));
	put("bad.jsonl", "{\"file\": \"a.py\", \"pred");
	assert_int_equal(eval_items_load(path, &cat, &it, &n), KBX_EPARSE);
	free(path);
}

static void test_folder(void **state)
{
	struct eval_item *it;
	int n;
	char *dir = xasprintf("%s/cands", tmp), *sub = xasprintf("%s/cands/Math", tmp);

	(void)state;
	mkdir(dir, 0755);
	mkdir(sub, 0755);
	put("cands/gelu.cu", "a");
	put("cands/Math/add.cu", "b");
	put("cands/Reduce__sum.cu", "c");
	put("cands/notes.txt", "not a candidate");
	assert_int_equal(eval_items_load(dir, &cat, &it, &n), KBX_OK);
	assert_int_equal(n, 3);
	/* sorted by path */
	assert_string_equal(it[0].id, "Math/add.cu");
	assert_string_equal(it[0].task_id, "Math/add");
	assert_string_equal(it[1].task_id, "Reduce/sum");
	assert_string_equal(it[2].task_id, "Activation/gelu");
	eval_items_free(it, n);
	assert_int_equal(eval_items_load("/nonexistent/x", &cat, &it, &n), KBX_ENOTFOUND);
	free(dir);
	free(sub);
}

static struct eval_item *fake_items(int n)
{
	struct eval_item *it = xcalloc((size_t)n, sizeof(*it));
	int i;

	for (i = 0; i < n; i++) {
		it[i].id = xasprintf("item %d", i);
		it[i].task_hint = xstrdup("x");
		it[i].source = xasprintf("source %d", i);
		it[i].source_name = xstrdup("x.cu");
		sha256_hex(it[i].source, strlen(it[i].source), it[i].sha);
	}
	return it;
}

static void test_shards_partition(void **state)
{
	int seen[23] = { 0 }, s, i, idx, cnt;

	(void)state;
	for (s = 0; s < 4; s++) {
		struct eval_item *it = fake_items(23);
		int k = eval_shard(it, 23, s, 4);

		for (i = 0; i < k; i++)
			seen[atoi(it[i].id + 5)]++;
		eval_items_free(it, 23);
	}
	for (i = 0; i < 23; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(eval_parse_shard("2/5", &idx, &cnt), KBX_OK);
	assert_int_equal(idx, 2);
	assert_int_equal(cnt, 5);
	assert_int_equal(eval_parse_shard("5/5", &idx, &cnt), KBX_EPARSE);
	assert_int_equal(eval_parse_shard("1", &idx, &cnt), KBX_EPARSE);
	assert_int_equal(eval_parse_shard("-1/2", &idx, &cnt), KBX_EPARSE);
	assert_int_equal(eval_parse_shard("1/0", &idx, &cnt), KBX_EPARSE);
}

static void test_gpu_lists(void **state)
{
	int g[8], n;

	(void)state;
	assert_int_equal(eval_parse_gpus("0", g, 8, &n), KBX_OK);
	assert_int_equal(n, 1);
	assert_int_equal(eval_parse_gpus("0,1,3", g, 8, &n), KBX_OK);
	assert_int_equal(n, 3);
	assert_int_equal(g[2], 3);
	assert_int_equal(eval_parse_gpus("0,0", g, 8, &n), KBX_EPARSE);
	assert_int_equal(eval_parse_gpus("", g, 8, &n), KBX_EPARSE);
	assert_int_equal(eval_parse_gpus("a", g, 8, &n), KBX_EPARSE);
	assert_int_equal(eval_parse_gpus("0,", g, 8, &n), KBX_OK);
	assert_int_equal(eval_parse_gpus("0,1,2", g, 2, &n), KBX_EPARSE);
}

/* Fake workers: record who ran what; each item takes a little while so that all workers join. */
struct fake {
	int runs[64];
	int worker_of[64];
	int finished_calls;
	FILE *progress;
};

static void fake_run(const struct eval_item *item, int worker, void *ctx, struct eval_record *out)
{
	struct fake *f = ctx;
	int i = atoi(item->id + 5);

	usleep(2000);
	__atomic_add_fetch(&f->runs[i], 1, __ATOMIC_SEQ_CST);
	f->worker_of[i] = worker;
	out->id = xstrdup(item->id);
	memcpy(out->sha, item->sha, sizeof(out->sha));
	out->device = worker;
	out->category = xstrdup(i % 2 ? "Odd" : "Even");
	out->task_id = xstrdup("Cat/t");
	/* every ninth correct but timed faster than the device allows: neither exe nor wrong */
	snprintf(out->verdict, sizeof(out->verdict), "%s", i % 3 ? "pass" : i % 9 ? "wrong" : "impossible_timing");
	out->call = 1;
	out->exe = i % 3 != 0;
	out->perf = out->exe;
	out->speedup_golden = out->exe ? (i % 2 ? 2.0 : 0.5) : -1;
	out->speedup_ref = -1;
	out->ms = out->ref_ms = out->golden_ms = out->gbps = out->tflops = -1;
	/* the wrong ones carry a triage: two conclusions among the even, one among the odd */
	if (!strcmp(out->verdict, "wrong")) {
		out->failed_case = xasprintf("case_%d", i);
		out->failed_stage = i % 2 ? NULL : xstrdup("x_q");
		out->diagnosis = xstrdup(i % 2 ? "the row scales differ" : i % 4 ? "the rounding mode differs" :
					 "the row scales differ");
	}
	/* each part of the split its own power of two, so that a swapped or dropped field shows */
	out->split = (struct time_split){ .compile_s = 0.25, .inputs_s = 0.5, .verify_s = 1, .timing_s = 2,
					  .launch_s = 0.125, .transfer_s = 0.0625 };
}

static void fake_done(const struct eval_record *rec, int finished, int total, void *ctx)
{
	struct fake *f = ctx;
	char *line = eval_record_to_json(rec);

	assert_true(finished >= 1 && finished <= total);
	f->finished_calls++;
	fprintf(f->progress, "%s\n", line);
	free(line);
}

static void test_schedule_and_resume(void **state)
{
	struct eval_item *it = fake_items(40), *ptrs[40];
	struct fake f;
	struct eval_record *recs;
	int i, n, used[4] = { 0 };
	char *path = xasprintf("%s/progress.jsonl", tmp);

	(void)state;
	memset(&f, 0, sizeof(f));
	f.progress = fopen(path, "w");
	assert_non_null(f.progress);
	for (i = 0; i < 40; i++)
		ptrs[i] = &it[i];
	assert_int_equal(eval_schedule(ptrs, 40, 4, fake_run, fake_done, &f), KBX_OK);
	fclose(f.progress);
	assert_int_equal(f.finished_calls, 40);
	for (i = 0; i < 40; i++) {
		assert_int_equal(f.runs[i], 1);          /* exactly once */
		used[f.worker_of[i]] = 1;
	}
	assert_true(used[0] + used[1] + used[2] + used[3] >= 2);   /* spread over workers */

	/* a torn last line (killed mid-write) is not a finished item */
	{
		FILE *fp = fopen(path, "a");

		fputs("{\"id\": \"item 99\", \"verd", fp);
		fclose(fp);
	}
	assert_int_equal(eval_progress_load(path, &recs, &n), KBX_OK);
	assert_int_equal(n, 40);
	assert_true(eval_done(recs, n, &it[7]));
	free(it[7].source);
	it[7].source = xstrdup("changed");
	sha256_hex(it[7].source, strlen(it[7].source), it[7].sha);
	assert_false(eval_done(recs, n, &it[7]));   /* a changed prediction runs again */

	/* reports */
	{
		char *rp = xasprintf("%s/report.txt", tmp), *text = NULL;
		FILE *fp = fopen(rp, "w");
		size_t len;

		assert_non_null(fp);
		assert_int_equal(eval_write_reports(tmp, recs, n, NULL, fp), KBX_OK);
		fclose(fp);
		assert_int_equal(read_file(rp, &text, &len), KBX_OK);
		/* wrong: i % 3 == 0 and i % 9 != 0 in 0..39: 3 6 12 15 21 24 30 33 39 (odd 3 15 21 33 39:
		 * rows; even 6 30: rounding (i % 4 != 0), 12 24: rows), most frequent first */
		assert_non_null(strstr(text, "why wrong items failed"));
		assert_non_null(strstr(text, "Odd                   5  the row scales differ\n"));
		/* a tie goes by text */
		assert_non_null(strstr(text, "Even                  2  the rounding mode differs\n"
					     "                      2  the row scales differ\n"));
		free(text);
		free(rp);
	}
	{
		char *sp = xasprintf("%s/summary.json", tmp);
		json_error_t err;
		json_t *s = json_load_file(sp, 0, &err), *all;

		assert_non_null(s);
		all = json_object_get(s, "overall");
		assert_int_equal(json_integer_value(json_object_get(all, "items")), 40);
		assert_int_equal(json_integer_value(json_object_get(all, "exe")), 26);    /* i % 3 != 0 */
		assert_int_equal(json_integer_value(json_object_get(all, "call")), 40);
		assert_int_equal(json_integer_value(json_object_get(all, "impossible_timing")), 5);   /* 0, 9, .. 36 */
		/* 13 odd (2x) and 13 even (0.5x) correct items: geomean 1, half slower */
		assert_float_equal(json_real_value(json_object_get(all, "speedup_geomean")), 1.0, 1e-9);
		assert_float_equal(json_real_value(json_object_get(all, "slower_share")), 0.5, 1e-9);
		assert_non_null(json_object_get(json_object_get(s, "categories"), "Odd"));
		/* the wrong items' conclusions, counted per category and overall */
		assert_int_equal(json_integer_value(json_object_get(json_object_get(all, "diagnoses"),
								    "the row scales differ")), 7);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(all, "diagnoses"),
								    "the rounding mode differs")), 2);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
			json_object_get(s, "categories"), "Odd"), "diagnoses"), "the row scales differ")), 5);
		/* the split went through progress.jsonl and was summed: 40 items of each part */
		assert_float_equal(json_real_value(json_object_get(all, "compile_s")), 10, 0);
		assert_float_equal(json_real_value(json_object_get(all, "inputs_s")), 20, 0);
		assert_float_equal(json_real_value(json_object_get(all, "verify_s")), 40, 0);
		assert_float_equal(json_real_value(json_object_get(all, "timing_s")), 80, 0);
		assert_float_equal(json_real_value(json_object_get(all, "launch_s")), 5, 0);
		assert_float_equal(json_real_value(json_object_get(all, "transfer_s")), 2.5, 0);
		json_decref(s);
		free(sp);
	}
	for (i = 0; i < n; i++)
		eval_record_free(&recs[i]);
	free(recs);
	eval_items_free(it, 40);
	free(path);
}

static void test_record_roundtrip_and_garbage(void **state)
{
	struct eval_record r = { 0 }, back;
	char *line;
	unsigned x = 99;
	int i, k;

	(void)state;
	r.id = xstrdup("line 3");
	r.task_id = xstrdup("Activation/gelu");
	r.category = xstrdup("Activation");
	snprintf(r.verdict, sizeof(r.verdict), "pass");
	r.message = xstrdup("ok \"quoted\"\nsecond line");
	r.call = r.exe = r.perf = 1;
	r.speedup_golden = 1.25;
	r.speedup_ref = -1;
	r.ms = 0.5;
	r.ref_ms = r.golden_ms = r.gbps = r.tflops = -1;
	r.device = 1;
	r.ref_kept_rows = 14;
	r.ref_outputs_kept = 9;
	r.started = 12.5;
	line = eval_record_to_json(&r);
	assert_int_equal(eval_record_from_json(line, &back), KBX_OK);
	assert_null(back.failed_case);      /* none: null in the JSON, NULL back */
	assert_null(back.diagnosis);
	eval_record_free(&back);
	free(line);
	r.failed_case = xstrdup("random_outlier");
	r.failed_stage = xstrdup("x_q");
	r.diagnosis = xstrdup("the rounding mode differs (truncation toward zero instead of rounding to the nearest?)");
	line = eval_record_to_json(&r);
	assert_int_equal(eval_record_from_json(line, &back), KBX_OK);
	assert_string_equal(back.failed_case, "random_outlier");
	assert_string_equal(back.failed_stage, "x_q");
	assert_string_equal(back.diagnosis, r.diagnosis);
	assert_string_equal(back.message, r.message);
	assert_int_equal(back.ref_kept_rows, 14);
	assert_int_equal(back.ref_outputs_kept, 9);
	assert_float_equal(back.started, 12.5, 0);
	assert_float_equal(back.speedup_golden, 1.25, 0);
	assert_true(back.speedup_ref < 0);
	assert_int_equal(back.device, 1);
	eval_record_free(&back);
	/* mutated lines never crash */
	for (i = 0; i < 3000; i++) {
		char *m = xstrdup(line);
		size_t len = strlen(m);

		for (k = 0; k < 4; k++) {
			x = x * 1103515245u + 12345u;
			m[(x >> 8) % len] = (char)(x >> 20);
		}
		if (eval_record_from_json(m, &back) == KBX_OK)
			eval_record_free(&back);
		free(m);
	}
	free(line);
	eval_record_free(&r);
}

/* A wrong item's triage comes from its first wrong case: the lens's conclusion on the first
 * failing output that has one, else the stage diagnosis's. */
static void test_triage(void **state)
{
	struct eval_record r = { 0 };
	struct output_result outs[2];
	struct case_result c = { 0 };

	(void)state;
	memset(outs, 0, sizeof(outs));
	c.outputs = outs;
	c.noutputs = 2;
	snprintf(c.name, sizeof(c.name), "corner");
	c.verdict = V_PASS;
	eval_record_triage(&r, &c);
	assert_null(r.failed_case);             /* a passing case is no triage */
	c.verdict = V_NOT_RUN;
	eval_record_triage(&r, &c);
	assert_null(r.failed_case);
	/* wrong: output 0 passed (its lens is not the reason), output 1 failed with a lens */
	snprintf(c.name, sizeof(c.name), "random_outlier");
	c.verdict = V_WRONG;
	outs[0].cmp.pass = 1;
	outs[0].quant.valid = 1;
	snprintf(outs[0].quant.diagnosis, sizeof(outs[0].quant.diagnosis), "all exact: the same quantization");
	outs[1].quant.valid = 1;
	snprintf(outs[1].quant.diagnosis, sizeof(outs[1].quant.diagnosis),
		 "error constant along each row (worst row 3: 11 steps): the row scales differ");
	snprintf(c.first_wrong_stage, sizeof(c.first_wrong_stage), "x_q");
	snprintf(c.stage_diagnosis, sizeof(c.stage_diagnosis), "40 values one step off: the rounding mode differs");
	eval_record_triage(&r, &c);
	assert_string_equal(r.failed_case, "random_outlier");
	assert_string_equal(r.failed_stage, "x_q");
	assert_string_equal(r.diagnosis, "the row scales differ");
	/* a later wrong case changes nothing */
	snprintf(c.name, sizeof(c.name), "primes");
	eval_record_triage(&r, &c);
	assert_string_equal(r.failed_case, "random_outlier");
	eval_record_free(&r);
	/* no lens on the failing output: the stage's conclusion */
	outs[1].quant.valid = 0;
	eval_record_triage(&r, &c);
	assert_string_equal(r.diagnosis, "the rounding mode differs");
	eval_record_free(&r);
	/* neither: the case and no diagnosis */
	c.first_wrong_stage[0] = c.stage_diagnosis[0] = 0;
	eval_record_triage(&r, &c);
	assert_string_equal(r.failed_case, "primes");
	assert_null(r.failed_stage);
	assert_null(r.diagnosis);
	eval_record_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_folder),
		cmocka_unit_test(test_shards_partition),
		cmocka_unit_test(test_gpu_lists),
		cmocka_unit_test(test_schedule_and_resume),
		cmocka_unit_test(test_record_roundtrip_and_garbage),
		cmocka_unit_test(test_triage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
