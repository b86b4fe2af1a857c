/*
 * test_refout.c - the reference's kept outputs (core/refout.c): the key changes with every
 * field it is made of (an input's digest, a binding, a size, the GPU, the reference) and with
 * nothing else; outputs packed come back unchanged; a blob that is not exactly one of these
 * outputs (short, long, another count or size, random bytes) is refused; and which outputs are
 * worth keeping. No GPU needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/problem.h"
#include "core/refout.h"
#include "core/task.h"

#define HEAD "[task]\nname = t\ncategory = Cat\ndifficulty = 1\nsummary = s\n"

/* two outputs (one inout), an input and a scalar: the shapes a blob must match */
static const char ini[] = HEAD
	"[args]\nx = in f32 [n]\nacc = inout f64 [n]\ny = out f32 [m]\nn = i64\nm = i64\nalpha = f32\n"
	"[inputs]\nx = randn\nacc = randn\n[case.one]\nn = 3\nm = 2\nalpha = 0.5\n"
	"[perf]\nn = pow2(10..11)\nm = 5\nalpha = 0.25\nx = uniform(0, 1)\nacc = uniform(0, 1)\n"
	"input_size = [n, m]\n";

static struct task *parse(const char *text)
{
	struct task *t = NULL;

	if (task_parse_text(text, "mem/task.ini", "Cat", "t", &t) != KBX_OK)
		fail_msg("task did not parse: %s", kbx_last_error());
	return t;
}

static uint64_t digests[3] = { 0x1111, 0x2222, 0 };

static struct refout_id base_id(void)
{
	struct refout_id id;

	memset(&id, 0, sizeof(id));
	id.kbx_version = "0.1.0";
	id.gpu_name = "NVIDIA H200";
	id.cc_major = 9;
	id.sms = 132;
	id.task_id = "Cat/t";
	id.ref_image_hash = "e6f8ccfc";
	id.inputs_key = "perf0";
	id.seed = 0;
	id.input_digests = digests;
	id.digest_kind = 'd';
	return id;
}

static void test_key_fields(void **state)
{
	struct task *t = parse(ini);
	struct problem pb, pb1;
	struct refout_id a = base_id(), b;
	uint64_t other[3] = { 0x1111, 0x2222, 0 };
	char ka[65], kb[65];

	(void)state;
	assert_int_equal(problem_from_perf(t, 0, &pb), KBX_OK);
	assert_int_equal(problem_from_perf(t, 1, &pb1), KBX_OK);
	refout_key(&a, &pb, ka);
	assert_int_equal(strlen(ka), 64);
	b = base_id();
	refout_key(&b, &pb, kb);
	assert_string_equal(ka, kb);            /* the same id, the same key */

#define CHANGED(stmt) do { b = base_id(); stmt; refout_key(&b, &pb, kb); assert_string_not_equal(ka, kb); } while (0)
	CHANGED(b.kbx_version = "0.1.1");
	CHANGED(b.gpu_name = "NVIDIA H100");
	CHANGED(b.cc_minor = 1);
	CHANGED(b.sms = 114);
	CHANGED(b.task_id = "Cat/u");
	CHANGED(b.ref_image_hash = "e6f8ccfd");
	CHANGED(b.inputs_key = "perf0-after-timing");
	CHANGED(b.seed = 1);
	CHANGED(b.digest_kind = 'h');
	/* each input's bytes: the in buffer's and the inout buffer's digests */
	CHANGED(other[0] = 0x1112; b.input_digests = other);
	CHANGED(other[0] = 0x1111; other[1] = 0x2223; b.input_digests = other);
#undef CHANGED
	/* the output's slot is no input: its value is not part of the key */
	other[1] = 0x2222;
	other[2] = 0xdead;
	b = base_id();
	b.input_digests = other;
	refout_key(&b, &pb, kb);
	assert_string_equal(ka, kb);

	/* another row: other sizes and bindings */
	refout_key(&a, &pb1, kb);
	assert_string_not_equal(ka, kb);
	/* a binding alone (the scalar alpha) changes it too */
	{
		struct task *t2 = parse(HEAD
			"[args]\nx = in f32 [n]\nacc = inout f64 [n]\ny = out f32 [m]\nn = i64\nm = i64\nalpha = f32\n"
			"[inputs]\nx = randn\nacc = randn\n[case.one]\nn = 3\nm = 2\nalpha = 0.5\n"
			"[perf]\nn = pow2(10..11)\nm = 5\nalpha = 0.125\nx = uniform(0, 1)\nacc = uniform(0, 1)\n"
			"input_size = [n, m]\n");
		struct problem pb2;

		assert_int_equal(problem_from_perf(t2, 0, &pb2), KBX_OK);
		assert_string_equal(pb.input_size, pb2.input_size);
		refout_key(&a, &pb2, kb);
		assert_string_not_equal(ka, kb);
		problem_free(&pb2);
		task_free(t2);
	}
	problem_free(&pb);
	problem_free(&pb1);
	task_free(t);
}

/* outputs of pb with recognisable bytes (NULL for the input) */
static void **make_outputs(const struct problem *pb, unsigned seed)
{
	void **out = calloc((size_t)pb->nbufs + 1, sizeof(*out));
	int i;

	for (i = 0; i < pb->nbufs; i++) {
		unsigned char *p;

		if (pb->bufs[i].arg->dir == ARG_IN)
			continue;
		p = malloc(pb->bufs[i].bytes);
		for (size_t k = 0; k < pb->bufs[i].bytes; k++)
			p[k] = (unsigned char)(seed + 7 * k + 13 * (size_t)i);
		out[i] = p;
	}
	return out;
}

static void free_outputs(const struct problem *pb, void **out)
{
	for (int i = 0; out && i < pb->nbufs; i++)
		free(out[i]);
	free(out);
}

static void test_pack_round_trip(void **state)
{
	struct task *t = parse(ini);
	struct problem pb;
	void **out, **back = NULL, *blob;
	size_t size;
	int i;

	(void)state;
	assert_int_equal(problem_from_perf(t, 1, &pb), KBX_OK);
	out = make_outputs(&pb, 5);
	blob = refout_pack(&pb, out, &size);
	/* header, two sizes, then the inout's and the output's bytes */
	assert_int_equal(size, 16 + 2 * 8 + pb.bufs[1].bytes + pb.bufs[2].bytes);
	assert_int_equal(refout_unpack(&pb, blob, size, &back), KBX_OK);
	assert_null(back[0]);                   /* the input has no slot */
	for (i = 1; i < pb.nbufs; i++)
		assert_memory_equal(back[i], out[i], pb.bufs[i].bytes);
	free_outputs(&pb, back);
	free_outputs(&pb, out);
	free(blob);
	problem_free(&pb);
	task_free(t);
}

static void test_unpack_refuses(void **state)
{
	struct task *t = parse(ini);
	struct problem pb, other;
	void **out, **back = NULL, *blob;
	unsigned char *bad;
	size_t size, k;

	(void)state;
	assert_int_equal(problem_from_perf(t, 1, &pb), KBX_OK);
	assert_int_equal(problem_from_perf(t, 0, &other), KBX_OK);
	out = make_outputs(&pb, 9);
	blob = refout_pack(&pb, out, &size);
	bad = malloc(size + 1);

	/* another row's sizes */
	assert_int_equal(refout_unpack(&other, blob, size, &back), KBX_EINVAL);
	assert_null(back);
	/* every shorter length, and one byte more */
	for (k = 0; k < size; k += (k < 64 ? 1 : 97)) {
		assert_int_equal(refout_unpack(&pb, blob, k, &back), KBX_EINVAL);
		assert_null(back);
	}
	memcpy(bad, blob, size);
	bad[size] = 0;
	assert_int_equal(refout_unpack(&pb, bad, size + 1, &back), KBX_EINVAL);
	/* the magic, the count, a size changed */
	for (k = 0; k < 32; k++) {
		memcpy(bad, blob, size);
		bad[k] ^= 0x40;
		assert_int_equal(refout_unpack(&pb, bad, size, &back), KBX_EINVAL);
		assert_null(back);
	}
	/* random bytes of random lengths */
	srand(7);
	for (k = 0; k < 2000; k++) {
		size_t n = (size_t)rand() % (size + 1);

		for (size_t j = 0; j < n; j++)
			bad[j] = (unsigned char)rand();
		if (k % 2 && n >= 16)
			memcpy(bad, "kbxrout1", 8);   /* past the magic, into the counts */
		assert_int_equal(refout_unpack(&pb, bad, n, &back), KBX_EINVAL);
		assert_null(back);
	}
	assert_int_equal(refout_unpack(&pb, NULL, 0, &back), KBX_EINVAL);
	free(bad);
	free(blob);
	free_outputs(&pb, out);
	problem_free(&pb);
	problem_free(&other);
	task_free(t);
}

static void test_worth_keeping(void **state)
{
	(void)state;
	assert_false(refout_worth_keeping(0.001, 4));                  /* quick: run it again */
	assert_false(refout_worth_keeping(REFOUT_MIN_LAUNCH_S / 2, 4));
	assert_true(refout_worth_keeping(2.0, 4));                     /* a determinant, seconds */
	assert_true(refout_worth_keeping(0.5, (size_t)8 << 20));       /* an eigensolver's 8 MiB */
	assert_false(refout_worth_keeping(0.05, (size_t)256 << 20));   /* a copy would cost more */
	assert_false(refout_worth_keeping(100.0, REFOUT_MAX_BYTES + 1));
	assert_true(refout_worth_keeping(100.0, REFOUT_MAX_BYTES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_fields),
		cmocka_unit_test(test_pack_round_trip),
		cmocka_unit_test(test_unpack_refuses),
		cmocka_unit_test(test_worth_keeping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
