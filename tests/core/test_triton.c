/*
 * Triton cache entries as candidates (core/triton.h). The fixtures in tests/data/triton/ are real
 * cache entries of one gelu kernel, compiled for sm_90 without a GPU by Triton 3.0.0 (no hidden
 * parameter), 3.3.1 (global scratch) and 3.6.0 (global and profile scratch) with
 * tests/data/triton/make_gelu.py; variants (broken metadata, missing files) are made from them
 * in a temporary folder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/expr.h"
#include "core/task.h"
#include "core/triton.h"
#include "core/util.h"
#include "core/worker.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif

#define LAUNCH "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)"

static const char *srcdir(void)
{
	const char *s = getenv("KBX_SRCDIR");

	return s && *s ? s : KBX_SRCDIR;
}

static char *fixture(const char *version)
{
	return xasprintf("%s/tests/data/triton/gelu-%s", srcdir(), version);
}

static char *get(const char *dir, const char *name, size_t *len);

/* A file of a fixture. */
static char *get_fixture(const char *version, const char *name, size_t *len)
{
	char *dir = fixture(version), *text = get(dir, name, len);

	free(dir);
	return text;
}

static struct task *gelu_task(void)
{
	char *root = xasprintf("%s/tasks", srcdir());
	struct task *t = NULL;

	if (task_load(root, "Activation", "gelu", &t))
		fail_msg("cannot load Activation/gelu: %s", kbx_last_error());
	free(root);
	return t;
}

static struct triton_kernel load_ok(const char *dir)
{
	struct triton_kernel k;

	if (triton_load(dir, &k))
		fail_msg("cannot load '%s': %s", dir, kbx_last_error());
	return k;
}

static void assert_contains(const char *s, const char *part)
{
	if (!s || !strstr(s, part))
		fail_msg("'%s' lacks '%s'", s ? s : "(null)", part);
}

/* ------------------------------------------------------------ temp folders ---- */

static char *tmp_dir(void)
{
	char *d = xstrdup("/tmp/kbx-test-triton-XXXXXX");

	if (!mkdtemp(d))
		fail_msg("mkdtemp failed");
	return d;
}

static void rm_dir(char *d)
{
	DIR *dd = opendir(d);
	struct dirent *e;

	while (dd && (e = readdir(dd)) != NULL) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", d, e->d_name);
		unlink(p);
		free(p);
	}
	if (dd)
		closedir(dd);
	rmdir(d);
	free(d);
}

static void put(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);

	if (write_file(p, data, len))
		fail_msg("%s", kbx_last_error());
	free(p);
}

static void put_text(const char *dir, const char *name, const char *text)
{
	put(dir, name, text, strlen(text));
}

static char *get(const char *dir, const char *name, size_t *len)
{
	char *p = xasprintf("%s/%s", dir, name), *text;
	size_t n;

	if (read_file(p, &text, &n))
		fail_msg("%s", kbx_last_error());
	free(p);
	if (len)
		*len = n;
	return text;
}

/* Copy files of a fixture into dir. */
static void copy(const char *version, const char *dir, const char *const *names)
{
	char *src = fixture(version);

	for (; *names; names++) {
		size_t len;
		char *data = get(src, *names, &len);

		put(dir, *names, data, len);
		free(data);
	}
	free(src);
}

static const char *const entry_files[] = { "gelu_kernel.json", "gelu_kernel.cubin", "gelu_kernel.ttir", NULL };

/* The 3.6 entry with its metadata changed: fmt is a JSON object merged into it. */
static char *entry_with_meta(const char *fmt)
{
	char *dir = tmp_dir(), *text = get_fixture("3.6", "gelu_kernel.json", NULL), *out;
	json_error_t err;
	json_t *o = json_loads(text, 0, &err), *patch = json_loads(fmt, 0, &err);

	if (!o || !patch)
		fail_msg("bad JSON in the test: %s", err.text);
	json_object_update(o, patch);
	out = json_dumps(o, 0);
	copy("3.6", dir, entry_files);
	put_text(dir, "gelu_kernel.json", out);
	free(out);
	free(text);
	json_decref(o);
	json_decref(patch);
	return dir;
}

/* The 3.6 entry with `from` replaced by `to` in its IR. */
static char *entry_with_ir(const char *from, const char *to)
{
	char *dir = tmp_dir(), *ir = get_fixture("3.6", "gelu_kernel.ttir", NULL), *at = strstr(ir, from);
	struct sbuf sb = SBUF_INIT;

	if (!at)
		fail_msg("'%s' is not in the IR", from);
	sbuf_add(&sb, ir, (size_t)(at - ir));
	sbuf_adds(&sb, to);
	sbuf_adds(&sb, at + strlen(from));
	copy("3.6", dir, entry_files);
	put_text(dir, "gelu_kernel.ttir", sb.buf);
	sbuf_release(&sb);
	free(ir);
	return dir;
}

/* ------------------------------------------------------------------ loading ---- */

static void test_load_versions(void **state)
{
	static const struct {
		const char *dir, *version;
		int declared, hidden, named;
	} v[] = {
		{ "3.0", NULL, 4, 0, 0 },
		{ "3.3", "3.3.1", 5, 1, 0 },
		{ "3.6", "3.6.0", 6, 2, 1 },
	};
	static const size_t sizes[] = { 8, 8, 4, 4, 8, 8 };
	size_t i;
	int j;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *dir = fixture(v[i].dir);
		struct triton_kernel k = load_ok(dir);

		assert_string_equal(k.name, "gelu_kernel");
		if (v[i].version)
			assert_string_equal(k.version, v[i].version);
		else
			assert_null(k.version);
		assert_int_equal(k.num_warps, 4);
		assert_int_equal(k.shared, 0);
		assert_int_equal(k.num_ctas, 1);
		assert_int_equal(k.arch, 90);
		assert_int_equal(k.cooperative, 0);
		assert_int_equal(k.meta_hidden, v[i].hidden);
		assert_int_equal(k.global_scratch_size, 0);
		assert_int_equal(k.profile_scratch_size, 0);
		assert_false(k.image_is_ptx);
		assert_memory_equal(k.image, "\177ELF", 4);
		assert_int_equal(k.nparams, 4);
		assert_true(k.params[0].is_ptr && k.params[1].is_ptr);
		assert_string_equal(k.params[0].elem, "f32");
		assert_string_equal(k.params[0].type, "!tt.ptr<f32>");
		assert_int_equal(k.params[0].divisibility, 16);
		assert_false(k.params[2].is_ptr);
		assert_string_equal(k.params[2].elem, "i32");
		assert_int_equal(k.params[2].divisibility, 0);
		assert_string_equal(k.params[3].type, "i32");
		if (v[i].named) {
			assert_string_equal(k.params[0].name, "x_ptr");
			assert_string_equal(k.params[2].name, "n");
		} else {
			assert_null(k.params[0].name); /* %arg0 loc(unknown) */
		}
		/* the cubin's own count: the signature's 4 + the hidden ones */
		assert_int_equal(k.declared, v[i].declared);
		assert_int_equal(k.declared, k.nparams + v[i].hidden);
		for (j = 0; j < k.declared; j++)
			assert_int_equal(k.declared_sizes[j], sizes[j]);
		triton_kernel_free(&k);
		free(dir);
	}
}

static void test_launch_file(void **state)
{
	char *dir = fixture("3.3"), *d;
	struct triton_kernel k = load_ok(dir);

	/* a comment line, then the launch; the __grp__ group file beside the metadata is no kernel */
	assert_string_equal(k.launch, LAUNCH);
	assert_int_equal(k.launch_line, 2);
	triton_kernel_free(&k);
	free(dir);

	d = tmp_dir();
	copy("3.6", d, entry_files);
	put_text(d, TRITON_LAUNCH_FILE, "\n# nothing here\n\n");
	assert_int_equal(triton_load(d, &k), KBX_EPARSE);
	assert_contains(kbx_last_error(), "kbx-launch.txt': no launch line");
	put_text(d, TRITON_LAUNCH_FILE, "// @kbx launch " LAUNCH "\n\n" LAUNCH "\n");
	assert_int_equal(triton_load(d, &k), KBX_EPARSE);
	assert_contains(kbx_last_error(), "kbx-launch.txt' line 3: a second launch line (the first is on line 1");
	put_text(d, TRITON_LAUNCH_FILE, "   // @kbx launch " LAUNCH "  \n");
	k = load_ok(d);
	assert_string_equal(k.launch, LAUNCH);
	triton_kernel_free(&k);
	rm_dir(d);
}

static void test_missing_files(void **state)
{
	struct triton_kernel k;
	char *d;
	static const char *const no_cubin[] = { "gelu_kernel.json", "gelu_kernel.ttir", NULL };
	static const char *const no_ir[] = { "gelu_kernel.json", "gelu_kernel.cubin", NULL };

	memset(&k, 0x5a, sizeof(k));
	assert_int_equal(triton_load("/nonexistent/kbx/triton", &k), KBX_ENOTFOUND);
	assert_contains(kbx_last_error(), "cannot open Triton cache entry '/nonexistent/kbx/triton'");
	assert_null(k.name); /* left empty */

	d = tmp_dir();
	assert_int_equal(triton_load(d, &k), KBX_ENOTFOUND);
	assert_contains(kbx_last_error(), "holds no kernel metadata");
	put_text(d, "__grp__gelu_kernel.json", "{\"child_paths\": {}}");
	assert_int_equal(triton_load(d, &k), KBX_ENOTFOUND);
	assert_contains(kbx_last_error(), "holds no kernel metadata");

	copy("3.6", d, no_cubin);
	assert_int_equal(triton_load(d, &k), KBX_ENOTFOUND);
	assert_contains(kbx_last_error(), "has neither 'gelu_kernel.cubin' nor 'gelu_kernel.ptx'");
	rm_dir(d);

	d = tmp_dir();
	copy("3.6", d, no_ir);
	assert_int_equal(triton_load(d, &k), KBX_ENOTFOUND);
	assert_contains(kbx_last_error(), "has no 'gelu_kernel.ttir'");
	/* from 3.5 on the entry also has <name>.source, the IR as the front end wrote it */
	{
		char *ir = get_fixture("3.6", "gelu_kernel.ttir", NULL);

		put_text(d, "gelu_kernel.source", ir);
		free(ir);
	}
	k = load_ok(d);
	assert_string_equal(k.params[3].name, "approximate");
	triton_kernel_free(&k);
	/* two kernels' metadata: which one? */
	put_text(d, "other_kernel.json", "{}");
	assert_int_equal(triton_load(d, &k), KBX_EINVAL);
	assert_contains(kbx_last_error(), "holds the metadata of 2 kernels");
	rm_dir(d);

	/* a "cubin" that is no ELF file */
	d = tmp_dir();
	copy("3.6", d, entry_files);
	put_text(d, "gelu_kernel.cubin", "not a cubin");
	assert_int_equal(triton_load(d, &k), KBX_EINVAL);
	assert_contains(kbx_last_error(), "is not a cubin");
	rm_dir(d);
}

static void test_ptx_only(void **state)
{
	static const char *const files[] = { "gelu_kernel.json", "gelu_kernel.ttir", "gelu_kernel.ptx", NULL };
	char *d = tmp_dir(), *ptx;
	struct triton_kernel k;
	size_t len;

	copy("3.6", d, files);
	k = load_ok(d);
	assert_true(k.image_is_ptx);
	ptx = get(d, "gelu_kernel.ptx", &len);
	/* cuModuleLoadData takes PTX as a NUL-terminated string */
	assert_int_equal(k.image_size, len + 1);
	assert_int_equal(k.image[len], '\0');
	assert_memory_equal(k.image, ptx, len);
	assert_int_equal(k.declared, 6);
	assert_int_equal(k.declared_sizes[2], 4);
	assert_int_equal(k.declared_sizes[5], 8);
	free(ptx);
	triton_kernel_free(&k);
	rm_dir(d);
}

/* ----------------------------------------------------------------- metadata ---- */

static void meta_err(const char *json, enum kbx_status want, const char *part)
{
	struct triton_kernel k;
	enum kbx_status st;

	memset(&k, 0, sizeof(k));
	st = triton_parse_metadata(json, "m.json", &k);
	if (st == KBX_OK)
		fail_msg("'%s' should fail (%s)", json, part);
	assert_int_equal(st, want);
	assert_true(str_starts_with(kbx_last_error(), "'m.json'"));
	assert_contains(kbx_last_error(), part);
	triton_kernel_free(&k);
}

static void test_bad_metadata(void **state)
{
	struct triton_kernel k;

	meta_err("{\"name\": \"k\", \"num_warps\": 4,", KBX_EPARSE, "'m.json' line 1 column");
	meta_err("[1, 2]", KBX_EPARSE, "expected a JSON object");
	meta_err("{\"num_warps\": 4, \"shared\": 0}", KBX_EPARSE, "\"name\"");
	meta_err("{\"name\": \"k\", \"shared\": 0}", KBX_EPARSE, "\"num_warps\" must be an integer of at least 1 (it is missing)");
	meta_err("{\"name\": \"k\", \"num_warps\": \"4\", \"shared\": 0}", KBX_EPARSE, "\"num_warps\"");
	meta_err("{\"name\": \"k\", \"num_warps\": 4}", KBX_EPARSE, "\"shared\"");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": -1}", KBX_EPARSE, "\"shared\"");
	meta_err("{\"name\": \"k\", \"num_warps\": 64, \"shared\": 0}", KBX_EINVAL, "more than 1024 threads");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"num_ctas\": 2}", KBX_EINVAL, "cluster launch");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"cluster_dims\": [2, 1, 1]}", KBX_EINVAL,
		 "cluster launch");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"target\": {\"backend\": \"hip\", \"arch\": "
		 "\"gfx942\", \"warp_size\": 64}}", KBX_EINVAL, "backend 'hip'");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"tensordesc_meta\": [{}]}", KBX_EINVAL,
		 "tensor descriptors");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"profile_scratch_size\": 0}", KBX_EPARSE,
		 "without \"global_scratch_size\"");
	meta_err("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"global_scratch_size\": null}", KBX_EPARSE,
		 "global_scratch_size");

	/* 3.0: no scratch keys, no hidden parameter; a cooperative 3.6 kernel with scratch */
	memset(&k, 0, sizeof(k));
	assert_int_equal(triton_parse_metadata("{\"name\": \"k\", \"num_warps\": 8, \"shared\": 49152, \"num_ctas\": 1, "
					       "\"cluster_dims\": [1, 1, 1], \"maxnreg\": null}", "m.json", &k), KBX_OK);
	assert_int_equal(k.meta_hidden, 0);
	assert_int_equal(k.num_warps, 8);
	assert_int_equal(k.shared, 49152);
	assert_int_equal(k.arch, 0);
	assert_int_equal(triton_parse_metadata("{\"name\": \"k\", \"num_warps\": 4, \"shared\": 0, \"launch_cooperative_grid\": "
					       "true, \"global_scratch_size\": 384, \"global_scratch_align\": 128, "
					       "\"profile_scratch_size\": 0, \"profile_scratch_align\": 1, \"target\": "
					       "{\"backend\": \"cuda\", \"arch\": 100, \"warp_size\": 32}}", "m.json", &k), KBX_OK);
	assert_int_equal(k.meta_hidden, 2);
	assert_int_equal(k.cooperative, 1);
	assert_int_equal(k.global_scratch_size, 384);
	assert_int_equal(k.global_scratch_align, 128);
	assert_int_equal(k.arch, 100);
	triton_kernel_free(&k);
}

/* ---------------------------------------------------------------- signature ---- */

static void test_signature(void **state)
{
	struct triton_param *p;
	int n;

	assert_int_equal(triton_parse_signature("module {\n  tt.func public @k() attributes {noinline = false} {\n", "a.ttir",
						"k", &p, &n), KBX_OK);
	assert_int_equal(n, 0);
	assert_null(p);

	/* a helper before the kernel, a quoted name, an address space, a file location, strings with commas */
	assert_int_equal(triton_parse_signature(
				 "tt.func private @k_helper(%arg0: i64) {\n}\n"
				 "tt.func public @\"k\"(%arg0: !tt.ptr<f32, 1> {tt.divisibility = 16 : i32} loc(\"/a,b.py\":3:0),"
				 " %arg1: i64 loc(\"stride\"(#loc)), %m: f32 {tt.divisibility = 8 : i32}, %arg3: !tt.ptr<i1>)"
				 " attributes {noinline = false} {",
				 "a.ttir", "k", &p, &n), KBX_OK);
	assert_int_equal(n, 4);
	assert_true(p[0].is_ptr);
	assert_string_equal(p[0].elem, "f32");
	assert_string_equal(p[0].type, "!tt.ptr<f32, 1>");
	assert_int_equal(p[0].divisibility, 16);
	assert_null(p[0].name);
	assert_string_equal(p[1].name, "stride");
	assert_string_equal(p[1].type, "i64");
	assert_string_equal(p[2].name, "m");
	assert_string_equal(p[2].elem, "f32");
	assert_int_equal(p[2].divisibility, 8);
	assert_string_equal(p[3].elem, "i1");
	triton_params_free(p, n);

	assert_int_equal(triton_parse_signature("tt.func public @k_other(%arg0: i32)", "a.ttir", "k", &p, &n), KBX_EPARSE);
	assert_contains(kbx_last_error(), "'a.ttir': no 'tt.func @k(...)'");
	assert_int_equal(triton_parse_signature("tt.func public @k(%arg0: i32, %arg1: !tt.ptr<f32", "a.ttir", "k", &p, &n),
			 KBX_EPARSE);
	assert_contains(kbx_last_error(), "does not end");
	assert_int_equal(triton_parse_signature("tt.func public @k(%arg0: i32, , %arg1: i32)", "a.ttir", "k", &p, &n),
			 KBX_EPARSE);
	assert_contains(kbx_last_error(), "parameter 2 of 'k'");
	assert_int_equal(triton_parse_signature("tt.func public @k(%arg0: !tt.tensordesc<tensor<64x64xf16>>)", "a.ttir", "k",
						&p, &n), KBX_EINVAL);
	assert_contains(kbx_last_error(), "tensor descriptor");
	assert_int_equal(triton_parse_signature("tt.func public @k(%arg0 i32)", "a.ttir", "k", &p, &n), KBX_EPARSE);
	assert_contains(kbx_last_error(), "expected ':'");
}

/* ------------------------------------------------------------------- binary ---- */

static void test_binary_params(void **state)
{
	static const char ptx[] =
		".version 8.4\n.target sm_90a\n.address_size 64\n"
		".visible .entry other(\n\t.param .u32 other_param_0\n)\n{ ret; }\n"
		".visible .entry k(\n\t.param .align 64 .b8 k_param_0[128],\n\t.param .f32 k_param_1,\n"
		"\t.param .u64 .ptr .global .align 16 k_param_2\n)\n.reqntid 128\n{ ret; }\n"
		".entry e()\n{ ret; }\n";
	size_t *sizes;
	char *dir = fixture("3.6"), *cubin;
	size_t len;

	assert_int_equal(triton_binary_params(ptx, sizeof(ptx) - 1, 1, "k", &sizes), 3);
	assert_int_equal(sizes[0], 128);
	assert_int_equal(sizes[1], 4);
	assert_int_equal(sizes[2], 8);
	free(sizes);
	assert_int_equal(triton_binary_params(ptx, sizeof(ptx) - 1, 1, "other", &sizes), 1);
	free(sizes);
	assert_int_equal(triton_binary_params(ptx, sizeof(ptx) - 1, 1, "e", &sizes), 0);
	free(sizes);
	assert_int_equal(triton_binary_params(ptx, sizeof(ptx) - 1, 1, "missing", &sizes), -1);
	assert_null(sizes);

	cubin = get(dir, "gelu_kernel.cubin", &len);
	assert_int_equal(triton_binary_params(cubin, len, 0, "gelu_kernel", &sizes), 6);
	free(sizes);
	assert_int_equal(triton_binary_params(cubin, len, 0, "gelu", &sizes), -1);   /* another kernel */
	assert_int_equal(triton_binary_params(cubin, 60, 0, "gelu_kernel", &sizes), -1);
	assert_int_equal(triton_binary_params("\177ELF", 4, 0, "gelu_kernel", &sizes), -1);
	free(cubin);
	free(dir);
}

/* ------------------------------------------------------------------- launch ---- */

struct built {
	struct kernel_spec spec;
	char why[1024];
	char *notes;
	enum kbx_status st;
};

static struct built build(const char *dir, const struct task *t, const char *launch, int sms)
{
	struct triton_kernel k = load_ok(dir);
	struct built b;

	memset(&b, 0, sizeof(b));
	b.st = triton_build_spec(&k, t, launch, NULL, sms, &b.spec, b.why, sizeof(b.why), &b.notes);
	triton_kernel_free(&k);
	return b;
}

static void built_free(struct built *b)
{
	kernel_spec_free(&b->spec);
	free(b->notes);
}

static void test_build_hidden(void **state)
{
	static const struct {
		const char *v;
		int hidden;
	} v[] = { { "3.0", 0 }, { "3.3", 1 }, { "3.6", 2 } };
	struct task *t = gelu_task();
	size_t i;
	int j;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *dir = fixture(v[i].v);
		struct built b = build(dir, t, LAUNCH, 0);
		const struct launch *l;

		assert_int_equal(b.st, KBX_OK);
		if (b.why[0])
			fail_msg("%s: %s", v[i].v, b.why);
		assert_int_equal(b.spec.nlaunches, 1);
		assert_int_equal(b.spec.nscratch, 0);
		l = &b.spec.launches[0];
		assert_string_equal(l->kernel, "gelu_kernel");
		assert_string_equal(l->grid[0], "cdiv(n, 1024)");
		assert_string_equal(l->grid[1], "1");
		assert_string_equal(l->block[0], "128"); /* 32 x num_warps 4 */
		assert_string_equal(l->block[1], "1");
		assert_string_equal(l->smem, "0");
		assert_false(l->cooperative);
		assert_int_equal(l->nargs, 4 + v[i].hidden);
		assert_string_equal(l->args[0].name, "x");
		assert_null(l->args[2].name);
		assert_int_equal(l->args[2].cast, DT_I32);
		assert_string_equal(l->args[2].expr, "n");
		/* scratch sizes are 0: null pointers, 8 bytes each */
		for (j = 4; j < l->nargs; j++) {
			assert_null(l->args[j].name);
			assert_int_equal(l->args[j].cast, DT_I64);
			assert_string_equal(l->args[j].expr, "0");
		}
		assert_null(b.notes);
		built_free(&b);
		free(dir);
	}
	/* the 3.3 entry's kbx-launch.txt */
	{
		char *dir = fixture("3.3");
		struct built b = build(dir, t, NULL, 0);

		assert_int_equal(b.st, KBX_OK);
		assert_string_equal(b.why, "");
		assert_int_equal(b.spec.launches[0].line, 2);
		assert_int_equal(b.spec.launches[0].nargs, 5);
		built_free(&b);
		free(dir);
	}
	task_free(t);
}

static void want_why(const char *dir, const struct task *t, const char *launch, const char *part);

static long long eval(const char *e, long long n)
{
	struct expr_env env = { 0 };
	long long v;
	int col;

	expr_env_set_int(&env, "n", n);
	if (expr_eval_int(e, &env, &v, &col))
		fail_msg("'%s': %s", e, kbx_last_error());
	expr_env_free(&env);
	return v;
}

static void test_build_scratch(void **state)
{
	struct task *t = gelu_task();
	char *d = entry_with_meta("{\"global_scratch_size\": 64, \"global_scratch_align\": 16, \"profile_scratch_size\": 32,"
				  " \"launch_cooperative_grid\": true}");
	struct built b = build(d, t, LAUNCH, 0);
	const struct launch *l;

	assert_string_equal(b.why, "");
	l = &b.spec.launches[0];
	assert_int_equal(l->nargs, 6);
	assert_true(l->cooperative);
	assert_int_equal(b.spec.nscratch, 2);
	assert_string_equal(l->args[4].name, "triton_global_scratch");
	assert_string_equal(l->args[5].name, "triton_profile_scratch");
	assert_string_equal(b.spec.scratch[0].name, "triton_global_scratch");
	assert_int_equal(b.spec.scratch[0].dtype, DT_U8);
	assert_int_equal(b.spec.scratch[0].ndim, 1);
	/* size x programs: cdiv(5000, 1024) = 5 */
	assert_int_equal(eval(b.spec.scratch[0].shape[0], 5000), 64 * 5);
	assert_int_equal(eval(b.spec.scratch[1].shape[0], 5000), 32 * 5);
	built_free(&b);

	/* a persistent grid over the multiprocessors: the scratch size is computed without `sms` */
	b = build(d, t, "gelu_kernel<<<dim3(min(sms, cdiv(n, 1024)), 2)>>>(x, y, i32(n), approximate)", 132);
	assert_string_equal(b.why, "");
	assert_int_equal(eval(b.spec.scratch[0].shape[0], 1 << 20), 64 * 132 * 2);
	assert_int_equal(eval(b.spec.scratch[1].shape[0], 4096), 32 * 4 * 2);
	built_free(&b);
	rm_dir(d);

	/* a real one: device-side TMA descriptors live in Triton's global scratch, 256 bytes a program */
	{
		char *tma = fixture("tma-3.6");
		struct triton_kernel k = load_ok(tma);

		assert_string_equal(k.name, "gelu_tma_kernel");
		assert_int_equal(k.global_scratch_size, 256);
		assert_int_equal(k.global_scratch_align, 128);
		assert_int_equal(k.shared, 4104);
		assert_int_equal(k.declared, 6);
		triton_kernel_free(&k);
		b = build(tma, t, "gelu_tma_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)", 0);
		assert_string_equal(b.why, "");
		l = &b.spec.launches[0];
		assert_string_equal(l->smem, "4104");
		assert_int_equal(l->nargs, 6);
		assert_string_equal(l->args[4].name, "triton_global_scratch");
		assert_null(l->args[5].name);  /* no profile scratch: null */
		assert_string_equal(l->args[5].expr, "0");
		assert_int_equal(b.spec.nscratch, 1);
		assert_int_equal(eval(b.spec.scratch[0].shape[0], 1000), 256);
		assert_int_equal(eval(b.spec.scratch[0].shape[0], 1 << 20), 256 * 1024);
		built_free(&b);
		want_why(tma, t, "gelu_tma_kernel<<<cdiv(n, 1024), 128, 0>>>(x, y, i32(n), approximate)",
			 "is not the 4104 bytes of the Triton metadata");
		free(tma);
	}

	d = entry_with_meta("{\"global_scratch_size\": 64, \"global_scratch_align\": 1024}");
	b = build(d, t, LAUNCH, 0);
	assert_contains(b.why, "1024-byte alignment");
	assert_int_equal(b.spec.nlaunches, 0);
	built_free(&b);
	rm_dir(d);
	task_free(t);
}

static void want_why(const char *dir, const struct task *t, const char *launch, const char *part)
{
	struct built b = build(dir, t, launch, 0);

	assert_int_equal(b.st, KBX_OK);
	if (!b.why[0])
		fail_msg("'%s' should disagree (%s)", launch, part);
	assert_contains(b.why, part);
	/* nothing half-built is left */
	assert_int_equal(b.spec.nlaunches, 0);
	assert_null(b.spec.launches);
	built_free(&b);
}

static void test_launch_disagrees(void **state)
{
	struct task *t = gelu_task();
	char *d36 = fixture("3.6"), *d30 = fixture("3.0"), *d;
	struct built b;

	/* Triton passes Python ints as i32; the task's n is i64 */
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, n, approximate)",
		 "parameter 3 'n' is i32 in the Triton signature but 'n' is i64; write i32(n)");
	/* 3.0 writes no parameter names: the launch's name stands in */
	want_why(d30, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, n, approximate)",
		 "parameter 3 'n' is i32 in the Triton signature but 'n' is i64; write i32(n)");
	want_why(d30, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i64(n), approximate)",
		 "parameter 3 is i32 in the Triton signature but the launch passes i64(n); write i32(n)");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n))",
		 "the Triton signature of 'gelu_kernel' has 4 parameters (x_ptr: !tt.ptr<f32>, y_ptr: !tt.ptr<f32>, n: i32, "
		 "approximate: i32) but the launch passes 3");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, approximate, i32(n), approximate)",
		 "parameter 2 'y_ptr' is a pointer (!tt.ptr<f32>) in the Triton signature but 'approximate' is a scalar (i32)");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, i64(0), i32(n), approximate)",
		 "parameter 2 'y_ptr' is a pointer (!tt.ptr<f32>) in the Triton signature but the launch passes i64(0)");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), x)",
		 "parameter 4 'approximate' is i32 in the Triton signature but 'x' is a buffer");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, out, i32(n), approximate)",
		 "argument 2 'out' is not an argument of task 'Activation/gelu'");
	want_why(d36, t, "gelu<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)",
		 "the launch names kernel 'gelu' but the Triton cache entry holds 'gelu_kernel'");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 256), 256>>>(x, y, i32(n), approximate)",
		 "the launch's block is 256 x 1 x 1 but the Triton metadata says num_warps 4, so 128 x 1 x 1");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024), dim3(128, 2)>>>(x, y, i32(n), approximate)",
		 "block is 128 x 2 x 1");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024), n>>>(x, y, i32(n), approximate)", "block must be a number");
	want_why(d36, t, "gelu_kernel<<<cdiv(n, 1024), 128, 4096>>>(x, y, i32(n), approximate)",
		 "shared memory size '4096' is not the 0 bytes of the Triton metadata");

	/* the same, written out in full, agrees */
	b = build(d36, t, "gelu_kernel<<<cdiv(n, 1024), 32 * 4, 0>>>(x, y, i32(n), approximate) cooperative", 0);
	assert_string_equal(b.why, "");
	assert_string_equal(b.spec.launches[0].block[0], "32 * 4");
	assert_true(b.spec.launches[0].cooperative);
	built_free(&b);

	/* a pointer to another dtype; a scalar type a launch line cannot write */
	d = entry_with_ir("%x_ptr: !tt.ptr<f32>", "%x_ptr: !tt.ptr<f16>");
	want_why(d, t, LAUNCH, "parameter 1 'x_ptr' points to f16 in the Triton signature but 'x' is f32");
	rm_dir(d);
	d = entry_with_ir("%approximate: i32", "%approximate: i8");
	want_why(d, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), i32(approximate))",
		 "parameter 4 'approximate' is i8 in the Triton signature, a scalar type a launch line cannot pass");
	rm_dir(d);
	/* an IR that is not the cubin's: n i64 where the cubin declares 4 bytes */
	d = entry_with_ir("%n: i32", "%n: i64");
	want_why(d, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, n, approximate)",
		 "gelu_kernel.cubin' declares parameter 3 with 4 bytes but the Triton signature says it is i64");
	rm_dir(d);
	/* a divisibility specialisation of a scalar: warned, not refused */
	d = entry_with_ir("%n: i32", "%n: i32 {tt.divisibility = 16 : i32}");
	b = build(d, t, LAUNCH, 0);
	assert_string_equal(b.why, "");
	assert_contains(b.notes, "parameter 3 'n' was specialised as divisible by 16");
	built_free(&b);
	rm_dir(d);

	free(d36);
	free(d30);
	task_free(t);
}

static void test_hidden_mismatch(void **state)
{
	static const char *const cubin_ir[] = { "gelu_kernel.cubin", "gelu_kernel.ttir", NULL };
	struct task *t = gelu_task();
	char *d = tmp_dir();

	/* 3.6's cubin (2 hidden) with 3.0's metadata (none) */
	copy("3.6", d, cubin_ir);
	copy("3.0", d, (const char *const[]){ "gelu_kernel.json", NULL });
	want_why(d, t, LAUNCH, "declares 6 parameters, the Triton signature has 4, so 2 are hidden; its metadata describes 0 "
		 "(as Triton 3.0 to 3.2 compile)");
	/* and 3.0's cubin with 3.3's metadata */
	copy("3.0", d, cubin_ir);
	copy("3.3", d, (const char *const[]){ "gelu_kernel.json", NULL });
	want_why(d, t, LAUNCH, "declares 4 parameters, the Triton signature has 4, so 0 are hidden; its metadata describes 1");
	rm_dir(d);
	task_free(t);
}

static void parse_fails(const char *dir, const struct task *t, const char *launch, const char *prefix, const char *part)
{
	struct built b = build(dir, t, launch, 0);

	if (b.st == KBX_OK)
		fail_msg("'%s' should not parse", launch);
	assert_int_equal(b.st, KBX_EPARSE);
	if (!str_starts_with(kbx_last_error(), prefix))
		fail_msg("'%s': '%s' does not start with '%s'", launch, kbx_last_error(), prefix);
	assert_contains(kbx_last_error(), part);
	assert_int_equal(b.spec.nlaunches, 0);
	built_free(&b);
}

static void test_launch_parse_errors(void **state)
{
	struct task *t = gelu_task();
	char *d36 = fixture("3.6"), *d;
	struct triton_kernel k;
	struct kernel_spec spec;
	char why[256];

	/* columns are the user's, although kbx completes the line before `>>>` */
	parse_fails(d36, t, LAUNCH " extra", "'--launch' column 59: ", "expected 'cooperative', 'untimed' or the end of the line");
	parse_fails(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate", "'--launch' column 57: ",
		    "expected ')' closing the argument list but found the end of the line");
	parse_fails(d36, t, "gelu_kernel<<<cdiv(n, 1024), >>>(x, y)", "'--launch' column 30: ",
		    "expected a block size but found '>'");
	parse_fails(d36, t, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, n + 1, approximate)", "'--launch' column 40: ",
		    "an expression needs a cast");
	parse_fails(d36, t, "gelu_kernel(x, y)", "'--launch' column 12: ", "expected '<<<'");
	parse_fails(d36, t, LAUNCH "\n" LAUNCH, "'--launch': ", "one launch line expected");

	/* in kbx-launch.txt, the file's line */
	d = tmp_dir();
	copy("3.6", d, entry_files);
	put_text(d, TRITON_LAUNCH_FILE, "# gelu\n\ngelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n)) x\n");
	k = load_ok(d);
	assert_int_equal(triton_build_spec(&k, t, NULL, NULL, 0, &spec, why, sizeof(why), NULL), KBX_EPARSE);
	assert_contains(kbx_last_error(), "kbx-launch.txt' line 3 column 46: ");
	triton_kernel_free(&k);

	/* no launch at all: say both ways to give one */
	{
		char *f = xasprintf("%s/%s", d, TRITON_LAUNCH_FILE);

		unlink(f);
		free(f);
	}
	k = load_ok(d);
	assert_int_equal(triton_build_spec(&k, t, NULL, NULL, 0, &spec, why, sizeof(why), NULL), KBX_EINVAL);
	assert_contains(kbx_last_error(), "no launch line for Triton kernel 'gelu_kernel': give one with --launch");
	assert_contains(kbx_last_error(), "kbx-launch.txt");
	triton_kernel_free(&k);
	rm_dir(d);
	free(d36);
	task_free(t);
}

/* ------------------------------------------------------------------- engine ---- */

static void test_prepare(void **state)
{
	struct task *t = gelu_task();
	char *d36 = fixture("3.6"), *d30 = fixture("3.0"), *d;
	struct kernel_spec spec;
	struct compile_result cr;
	char why[1024];
	void *image;
	size_t size;

	assert_int_equal(triton_prepare(t, d36, LAUNCH, 0, 0, &spec, &cr, &image, &size, why, sizeof(why)), KBX_OK);
	assert_true(cr.ok);
	assert_string_equal(why, "");
	assert_string_equal(cr.arch, "sm_90");
	assert_contains(cr.log, "Triton 3.6.0 kernel 'gelu_kernel'");
	assert_contains(cr.log, "4 warps (128 threads)");
	assert_int_equal(cr.ndiags, 0);
	assert_memory_equal(image, "\177ELF", 4);
	assert_int_equal(spec.launches[0].nargs, 6);
	kernel_spec_free(&spec);
	compile_result_free(&cr);
	free(image);

	/* the binary is for sm_90a: on another GPU it cannot load */
	assert_int_equal(triton_prepare(t, d30, LAUNCH, 80, 108, &spec, &cr, &image, &size, why, sizeof(why)), KBX_OK);
	assert_true(cr.ok);
	assert_contains(cr.log, "Triton 3.0-3.2 kernel");
	assert_contains(why, "was compiled for sm_90a (Triton's target arch 90) and this GPU is sm_80");
	kernel_spec_free(&spec);
	compile_result_free(&cr);
	free(image);
	assert_int_equal(triton_prepare(t, d30, LAUNCH, 90, 132, &spec, &cr, &image, &size, why, sizeof(why)), KBX_OK);
	assert_string_equal(why, "");
	kernel_spec_free(&spec);
	compile_result_free(&cr);
	free(image);

	/* a launch that does not parse: a failed compile, one diagnostic where it points */
	assert_int_equal(triton_prepare(t, d36, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate",
					0, 0, &spec, &cr, &image, &size, why, sizeof(why)), KBX_OK);
	assert_false(cr.ok);
	assert_null(image);
	assert_int_equal(cr.ndiags, 1);
	assert_int_equal(cr.diags[0].line, 1);
	assert_int_equal(cr.diags[0].col, 57);
	assert_string_equal(cr.diags[0].severity, "error");
	assert_contains(cr.diags[0].message, "expected ')' closing the argument list");
	compile_result_free(&cr);

	/* a broken entry: likewise */
	assert_int_equal(triton_prepare(t, "/nonexistent/entry", LAUNCH, 0, 0, &spec, &cr, &image, &size, why, sizeof(why)),
			 KBX_OK);
	assert_false(cr.ok);
	assert_int_equal(cr.ndiags, 1);
	assert_contains(cr.diags[0].message, "cannot open Triton cache entry '/nonexistent/entry'");
	compile_result_free(&cr);

	/* a disagreement: compiled, but an ABI error */
	assert_int_equal(triton_prepare(t, d36, "gelu_kernel<<<cdiv(n, 1024)>>>(x, y, n, approximate)", 0, 0, &spec, &cr,
					&image, &size, why, sizeof(why)), KBX_OK);
	assert_true(cr.ok);
	assert_contains(why, "write i32(n)");
	compile_result_free(&cr);
	free(image);

	/* notes become warnings */
	d = entry_with_ir("%n: i32", "%n: i32 {tt.divisibility = 16 : i32}");
	assert_int_equal(triton_prepare(t, d, LAUNCH, 0, 0, &spec, &cr, &image, &size, why, sizeof(why)), KBX_OK);
	assert_true(cr.ok);
	assert_int_equal(cr.ndiags, 1);
	assert_string_equal(cr.diags[0].severity, "warning");
	assert_contains(cr.diags[0].message, "divisible by 16");
	kernel_spec_free(&spec);
	compile_result_free(&cr);
	free(image);
	rm_dir(d);

	free(d36);
	free(d30);
	task_free(t);
}

static void test_source_text(void **state)
{
	char *d = fixture("3.3"), *text = NULL, hash[65], *cubin;
	size_t len;

	assert_int_equal(triton_source_text(d, NULL, &text), KBX_OK);
	assert_contains(text, "// launch: " LAUNCH "\n");
	cubin = get(d, "gelu_kernel.cubin", &len);
	sha256_hex(cubin, len, hash);
	assert_contains(text, hash);
	assert_contains(text, "tt.func public @gelu_kernel(");
	free(cubin);
	free(text);
	free(d);
	d = fixture("3.6");
	assert_int_equal(triton_source_text(d, NULL, &text), KBX_EINVAL);
	assert_contains(kbx_last_error(), "no launch line");
	assert_null(text);
	free(d);
}

/* The worker request carries the entry and its launch line to the worker process. */
static void test_worker_request(void **state)
{
	struct worker_request req, back;
	char *json;

	worker_request_default(&req);
	req.task_id = "Activation/gelu";
	req.source = "// Triton";
	req.triton_dir = "/abs/entry";
	req.triton_launch = LAUNCH;
	json = worker_request_to_json(&req);
	assert_int_equal(worker_request_from_json(json, &back), KBX_OK);
	assert_string_equal(back.triton_dir, "/abs/entry");
	assert_string_equal(back.triton_launch, LAUNCH);
	worker_request_free(&back);
	free(json);
	req.triton_dir = req.triton_launch = NULL;
	json = worker_request_to_json(&req);
	assert_null(strstr(json, "triton"));
	assert_int_equal(worker_request_from_json(json, &back), KBX_OK);
	assert_null(back.triton_dir);
	assert_null(back.triton_launch);
	worker_request_free(&back);
	free(json);
}

/* ------------------------------------------------------------------ garbage ---- */

static uint64_t rng_state = 0x7a17077;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33) % n;
}

/* Mutate buf (len bytes, room for cap) with a few deletions, insertions and replacements. */
static size_t mutate(char *buf, size_t len, size_t cap, const char *alphabet, int binary)
{
	int k, edits = 1 + (int)rnd(8);

	for (k = 0; k < edits; k++) {
		size_t at = rnd((uint32_t)len + 1);
		char c = binary ? (char)rnd(256) : alphabet[rnd((uint32_t)strlen(alphabet))];
		int what = (int)rnd(3);

		if (what == 0 && at < len) {
			memmove(buf + at, buf + at + 1, len - at);
			len--;
		} else if (what == 1 && len + 2 < cap) {
			memmove(buf + at + 1, buf + at, len - at + 1);
			buf[at] = c;
			len++;
		} else if (at < len) {
			buf[at] = c;
		}
	}
	buf[len] = '\0';
	return len;
}

static void test_garbage(void **state)
{
	static const char json_alpha[] = "{}[]\":,0123456789-. ntruefalsnul_abcxyz\\";
	static const char ir_alpha[] = "%@()<>{}[]:,\"= !tt.ptrf32i64loc#0123456789 \n";
	static const char launch_alpha[] = "<<<>>>(),[] xyn0123i32i64f32dim3cdivsms*+-/gelu_kernel";
	struct task *t = gelu_task();
	char *dir = fixture("3.6");
	struct triton_kernel k = load_ok(dir);
	char *json = get(dir, "gelu_kernel.json", NULL), *ir = get(dir, "gelu_kernel.ttir", NULL);
	char *ptx = get(dir, "gelu_kernel.ptx", NULL), *cubin, *buf;
	size_t cubin_len, cap = 65536, n;
	int i;

	cubin = get(dir, "gelu_kernel.cubin", &cubin_len);
	buf = xmalloc(cap);
	for (i = 0; i < 3000; i++) {
		struct triton_kernel m;

		memset(&m, 0, sizeof(m));
		n = strlen(json);
		memcpy(buf, json, n + 1);
		mutate(buf, n, cap, json_alpha, i % 10 == 0);
		if (triton_parse_metadata(buf, "g.json", &m) == KBX_OK) {
			assert_non_null(m.name);
			assert_true(m.num_warps >= 1 && m.num_warps <= 32 && m.shared >= 0);
		} else {
			assert_true(str_starts_with(kbx_last_error(), "'g.json'"));
		}
		triton_kernel_free(&m);
	}
	for (i = 0; i < 3000; i++) {
		struct triton_param *p;
		int np, j;

		/* the part around the signature, so that edits hit it */
		n = strlen(ir) < 1200 ? strlen(ir) : 1200;
		memcpy(buf, ir, n);
		buf[n] = '\0';
		mutate(buf, n, cap, ir_alpha, i % 10 == 0);
		if (triton_parse_signature(buf, "g.ttir", "gelu_kernel", &p, &np) == KBX_OK) {
			for (j = 0; j < np; j++)
				assert_true(p[j].type && p[j].type[0]);
			triton_params_free(p, np);
		} else {
			assert_true(str_starts_with(kbx_last_error(), "'g.ttir'"));
		}
	}
	for (i = 0; i < 3000; i++) {
		struct kernel_spec spec;
		char why[512];
		enum kbx_status st;

		n = strlen(LAUNCH);
		memcpy(buf, LAUNCH, n + 1);
		mutate(buf, n, 512, launch_alpha, i % 10 == 0);
		st = triton_build_spec(&k, t, buf, NULL, 132, &spec, why, sizeof(why), NULL);
		if (st == KBX_OK && !why[0])
			assert_int_equal(spec.nlaunches, 1);
		else if (st)
			assert_true(str_starts_with(kbx_last_error(), "'--launch'"));
		kernel_spec_free(&spec);
	}
	for (i = 0; i < 2000; i++) {
		size_t *sizes;
		int c;

		n = strlen(ptx);
		memcpy(buf, ptx, n + 1);
		n = mutate(buf, n, cap, ir_alpha, i % 5 == 0);
		c = triton_binary_params(buf, n, 1, "gelu_kernel", &sizes);
		assert_true(c >= -1 && c <= 64);
		free(sizes);
	}
	for (i = 0; i < 3000; i++) {
		size_t *sizes, len = rnd(8) ? cubin_len : rnd((uint32_t)cubin_len);
		int c, e, edits = 1 + (int)rnd(4);
		char *img = xmalloc(cubin_len);

		memcpy(img, cubin, cubin_len);
		/* mostly the header, the section table and .nv.info; an exact-size copy so that ASan
		 * sees any read past the end */
		for (e = 0; e < edits; e++) {
			size_t at = rnd(4) == 0 ? rnd(64) : rnd((uint32_t)cubin_len);

			img[at] = (char)rnd(256);
		}
		if (len < cubin_len)
			img = xrealloc(img, len ? len : 1);
		c = triton_binary_params(img, len, 0, "gelu_kernel", &sizes);
		assert_true(c >= -1 && c <= 256);
		free(sizes);
		free(img);
	}
	free(buf);
	free(cubin);
	free(ptx);
	free(ir);
	free(json);
	triton_kernel_free(&k);
	free(dir);
	task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_versions),
		cmocka_unit_test(test_launch_file),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_ptx_only),
		cmocka_unit_test(test_bad_metadata),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_binary_params),
		cmocka_unit_test(test_build_hidden),
		cmocka_unit_test(test_build_scratch),
		cmocka_unit_test(test_launch_disagrees),
		cmocka_unit_test(test_hidden_mismatch),
		cmocka_unit_test(test_launch_parse_errors),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_source_text),
		cmocka_unit_test(test_worker_request),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
