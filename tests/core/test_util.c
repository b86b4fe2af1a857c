#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

/* Let ASan's malloc return NULL on absurd sizes, so that xmalloc's own abort path runs. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static char tmpdir[256];

static int setup_dir(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kbx_test_util.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char path[600];

	if (d) {
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(tmpdir);
	return 0;
}

static int count_dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* ---- allocation ---- */

static void test_alloc(void **state)
{
	char *p = xmalloc(0), *q;
	int *z = xcalloc(100, sizeof(int));
	int i;

	assert_non_null(p);
	free(p);
	for (i = 0; i < 100; i++)
		assert_int_equal(z[i], 0);
	z = xrealloc(z, 1000 * sizeof(int));
	for (i = 0; i < 100; i++)
		assert_int_equal(z[i], 0);
	z[999] = 7;
	free(z);
	p = xcalloc(0, 0);
	assert_non_null(p);
	free(p);

	p = xstrdup("hello");
	assert_string_equal(p, "hello");
	q = xstrndup("hello", 3);
	assert_string_equal(q, "hel");
	free(q);
	q = xstrndup("hi", 100); /* n past the end: stops at the NUL */
	assert_string_equal(q, "hi");
	free(q);
	free(p);

	p = xasprintf("%s-%d-%.2f", "x", 42, 1.5);
	assert_string_equal(p, "x-42-1.50");
	free(p);
	p = xasprintf("%0300d|", 5); /* longer than any first guess */
	assert_int_equal(strlen(p), 301);
	assert_int_equal(p[299], '5');
	free(p);
}

static void test_xgrow(void **state)
{
	int *a = NULL;
	size_t cap = 0, i;

	XGROW(a, 1, cap);
	assert_int_equal(cap, 8);
	XGROW(a, 8, cap);
	assert_int_equal(cap, 8);
	XGROW(a, 9, cap);
	assert_int_equal(cap, 16);
	XGROW(a, 1000, cap);
	assert_true(cap >= 1000);
	for (i = 0; i < 1000; i++)
		a[i] = (int)i;
	assert_int_equal(a[999], 999);
	free(a);
}

static void oom_child(size_t n)
{
	pid_t pid;
	int status, fds[2];
	char buf[1024] = "";
	size_t used = 0;
	ssize_t got;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* cmocka's handlers would catch the abort; the child must die of it */
		signal(SIGABRT, SIG_DFL);
		dup2(fds[1], 2);
		xmalloc(n);
		_exit(0);
	}
	close(fds[1]);
	/* ASan may warn first: read everything */
	while (used < sizeof(buf) - 1 && (got = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)got;
	close(fds[0]);
	buf[used] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_non_null(strstr(buf, "out of memory"));
}

static void test_out_of_memory_aborts(void **state)
{
	oom_child(SIZE_MAX - 4096);
}

/* ---- sbuf ---- */

static void test_sbuf(void **state)
{
	struct sbuf sb = SBUF_INIT;
	char *s;
	int i;

	sbuf_adds(&sb, "abc");
	sbuf_add(&sb, "defXYZ", 3);
	assert_string_equal(sb.buf, "abcdef");
	assert_int_equal(sb.len, 6);
	sbuf_addf(&sb, "-%d-%s", 12, "x");
	assert_string_equal(sb.buf, "abcdef-12-x");
	assert_int_equal(sb.len, 11);
	/* an addf that does not fit in the spare room */
	sbuf_addf(&sb, "%0200d", 1);
	assert_int_equal(sb.len, 211);
	assert_int_equal(strlen(sb.buf), 211);
	assert_int_equal(sb.buf[210], '1');
	assert_true(sb.cap > sb.len);

	sbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	for (i = 0; i < 1000; i++)
		sbuf_addf(&sb, "%d,", i % 10);
	assert_int_equal(sb.len, 2000);
	assert_int_equal(strlen(sb.buf), 2000);
	assert_true(strncmp(sb.buf + 1990, "5,6,7,8,9,", 10) == 0);

	s = sbuf_detach(&sb);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_int_equal(strlen(s), 2000);
	free(s);

	/* detach of an empty buffer gives "" */
	s = sbuf_detach(&sb);
	assert_string_equal(s, "");
	free(s);

	/* bytes with NULs count in len */
	sbuf_add(&sb, "a\0b", 3);
	assert_int_equal(sb.len, 3);
	assert_int_equal(sb.buf[2], 'b');
	assert_int_equal(sb.buf[3], '\0');
	sbuf_add(&sb, "", 0);
	assert_int_equal(sb.len, 3);
	sbuf_release(&sb);
	assert_null(sb.buf);
	sbuf_release(&sb); /* twice is fine */
	sbuf_reset(&sb);  /* reset of an empty one too */
}

/* ---- files ---- */

static void test_write_read_roundtrip(void **state)
{
	char path[600], *data, *back;
	size_t len, i, n = 1 << 20;
	struct stat st;
	mode_t old;

	snprintf(path, sizeof(path), "%s/a.bin", tmpdir);
	data = xmalloc(n);
	for (i = 0; i < n; i++)
		data[i] = (char)(i * 7 + (i >> 9));
	data[10] = '\0';
	old = umask(022);
	assert_int_equal(write_file(path, data, n), KBX_OK);
	umask(old);
	assert_int_equal(read_file(path, &back, &len), KBX_OK);
	assert_int_equal(len, n);
	assert_memory_equal(back, data, n);
	assert_int_equal(back[n], '\0');
	free(back);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	/* overwrite with something shorter: the old content is gone */
	assert_int_equal(write_file(path, "short", 5), KBX_OK);
	assert_int_equal(read_file(path, &back, &len), KBX_OK);
	assert_int_equal(len, 5);
	assert_string_equal(back, "short");
	free(back);

	/* empty file */
	assert_int_equal(write_file(path, "", 0), KBX_OK);
	assert_int_equal(read_file(path, &back, NULL), KBX_OK);
	assert_non_null(back);
	assert_string_equal(back, "");
	free(back);

	/* no temporary file is left behind */
	assert_int_equal(count_dir_entries(tmpdir), 1);
	free(data);
}

static void test_read_errors(void **state)
{
	char path[600], *back = (char *)"sentinel";
	size_t len = 99;

	snprintf(path, sizeof(path), "%s/missing.txt", tmpdir);
	assert_int_equal(read_file(path, &back, &len), KBX_ENOTFOUND);
	assert_null(back);
	assert_int_equal(len, 0);
	assert_non_null(strstr(kbx_last_error(), "missing.txt"));
	assert_true(strncmp(kbx_last_error(), "cannot open '", 13) == 0);

	assert_int_equal(read_file(tmpdir, &back, &len), KBX_EIO);
	assert_null(back);
	assert_non_null(strstr(kbx_last_error(), tmpdir));
}

static void test_read_proc(void **state)
{
	char *back;
	size_t len;

	/* st_size is 0 for /proc files: read until end of file */
	assert_int_equal(read_file("/proc/self/status", &back, &len), KBX_OK);
	assert_true(len > 100);
	assert_int_equal(strlen(back), len);
	assert_non_null(strstr(back, "Pid:"));
	free(back);
}

static void test_write_errors(void **state)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/no/such/dir/x.txt", tmpdir);
	assert_int_equal(write_file(path, "x", 1), KBX_EIO);
	assert_non_null(strstr(kbx_last_error(), "x.txt"));
	assert_true(strncmp(kbx_last_error(), "cannot write '", 14) == 0);
	/* writing over a directory fails at rename and leaves no temporary file */
	snprintf(path, sizeof(path), "%s/sub", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(write_file(path, "x", 1), KBX_EIO);
	assert_int_equal(count_dir_entries(tmpdir), 1);
	rmdir(path);
}

/* ---- strings ---- */

static void test_str_trim(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "   ", "" },
		{ "\t\r\n\f\v ", "" },
		{ "x", "x" },
		{ "  x", "x" },
		{ "x  ", "x" },
		{ " \t a b  c \n", "a b  c" },
		{ "\xc3\xa9 ", "\xc3\xa9" }, /* non-ASCII bytes are not space */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = xstrdup(cases[i].in);

		assert_ptr_equal(str_trim(s), s);
		assert_string_equal(s, cases[i].out);
		free(s);
	}
}

static void test_str_starts_with(void **state)
{
	assert_true(str_starts_with("// @kbx launch", "// @kbx"));
	assert_true(str_starts_with("abc", ""));
	assert_true(str_starts_with("abc", "abc"));
	assert_false(str_starts_with("ab", "abc"));
	assert_false(str_starts_with("", "a"));
	assert_false(str_starts_with("xabc", "abc"));
}

/* ---- hashes ---- */

static void sha_of(const char *s, size_t len, const char *want)
{
	char out[65];

	memset(out, 'Z', sizeof(out));
	sha256_hex(s, len, out);
	assert_string_equal(out, want);
}

static void test_sha256_vectors(void **state)
{
	static const struct {
		size_t n;
		const char *hex;
	} as[] = {
		/* runs of 'a' across the padding boundaries (55/56 and 119/120 bytes) */
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
		{ 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
	};
	unsigned char bytes[768];
	char *a = xmalloc(1000000);
	size_t i;

	/* FIPS 180-2 examples */
	sha_of("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha_of("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(a, 'a', 1000000);
	for (i = 0; i < sizeof(as) / sizeof(as[0]); i++)
		sha_of(a, as[i].n, as[i].hex);
	free(a);
	/* all byte values, high bit included */
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)i;
	sha_of((const char *)bytes, sizeof(bytes), "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363");
}

static void test_hash64(void **state)
{
	/* published FNV-1a 64 values */
	assert_true(hash64("", 0, HASH64_INIT) == 0xcbf29ce484222325ULL);
	assert_true(hash64("a", 1, HASH64_INIT) == 0xaf63dc4c8601ec8cULL);
	assert_true(hash64("foobar", 6, HASH64_INIT) == 0x85944171f73967e8ULL);
	/* chaining equals hashing the concatenation, which the RNG keys rely on */
	assert_true(hash64("bar", 3, hash64("foo", 3, HASH64_INIT)) == 0x85944171f73967e8ULL);
	assert_true(hash64("ab", 2, HASH64_INIT) != hash64("ba", 2, HASH64_INIT));
}

static void test_path_kinds(void **state)
{
	(void)state;
	assert_true(path_is_file(KBX_SRCDIR "/README.md"));
	assert_false(path_is_dir(KBX_SRCDIR "/README.md"));
	assert_true(path_is_dir(KBX_SRCDIR "/core"));
	assert_false(path_is_file(KBX_SRCDIR "/core"));
	assert_false(path_is_file(KBX_SRCDIR "/no/such/file"));
	assert_false(path_is_dir(""));
}

/* path_find_exec: $PATH as the shell reads it; only an executable regular file counts. */
static void test_path_find_exec(void **state)
{
	char out[700], want[700], cwd[600], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, path[700];
	FILE *f;

	(void)state;
	snprintf(want, sizeof(want), "%s/tool", tmpdir);
	assert_non_null(f = fopen(want, "w"));
	fclose(f);
	assert_int_equal(chmod(want, 0755), 0);
	snprintf(path, sizeof(path), "%s/plain", tmpdir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/subdir", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);

	snprintf(path, sizeof(path), "/no/such/dir:%s", tmpdir);
	setenv("PATH", path, 1);
	assert_int_equal(path_find_exec("tool", out, sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(path_find_exec("plain", out, sizeof(out)), -1);   /* not executable */
	assert_int_equal(path_find_exec("subdir", out, sizeof(out)), -1);  /* a folder */
	assert_int_equal(path_find_exec("missing", out, sizeof(out)), -1);
	assert_int_equal(path_find_exec("", out, sizeof(out)), -1);
	assert_int_equal(path_find_exec(want, out, sizeof(out)), 0);       /* a path is taken as it is */
	assert_string_equal(out, want);
	snprintf(path, sizeof(path), "%s/plain", tmpdir);
	assert_int_equal(path_find_exec(path, out, sizeof(out)), -1);
	/* an empty element is the current folder */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	setenv("PATH", "/no/such/dir::/also/not", 1);
	assert_int_equal(path_find_exec("tool", out, sizeof(out)), 0);
	assert_string_equal(out, "./tool");
	assert_int_equal(chdir(cwd), 0);
	/* a result that does not fit is not found */
	setenv("PATH", tmpdir, 1);
	assert_int_equal(path_find_exec("tool", out, 8), -1);
	if (old)
		setenv("PATH", old, 1);
	else
		unsetenv("PATH");
	free(old);
	snprintf(path, sizeof(path), "%s/subdir", tmpdir);
	rmdir(path);
}

static void test_now_seconds(void **state)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	double a = now_seconds(), b, c;

	nanosleep(&ts, NULL);
	b = now_seconds();
	c = now_seconds();
	assert_true(a > 0);
	assert_true(b - a >= 0.015);
	assert_true(b - a < 5);
	assert_true(c >= b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_xgrow),
		cmocka_unit_test(test_out_of_memory_aborts),
		cmocka_unit_test(test_sbuf),
		cmocka_unit_test_setup_teardown(test_write_read_roundtrip, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_read_errors, setup_dir, teardown_dir),
		cmocka_unit_test(test_read_proc),
		cmocka_unit_test_setup_teardown(test_write_errors, setup_dir, teardown_dir),
		cmocka_unit_test(test_str_trim),
		cmocka_unit_test(test_str_starts_with),
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_hash64),
		cmocka_unit_test(test_now_seconds),
		cmocka_unit_test(test_path_kinds),
		cmocka_unit_test_setup_teardown(test_path_find_exec, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
