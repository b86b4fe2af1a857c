/* CUDA colouring: which role each token gets, block comments across lines, @kbx lines, and that
 * colouring never changes the text (random input included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "tui/doc.h"
#include "tui/syntax.h"
#include "tui/theme.h"

/* The role at the first occurrence of `what` in the line just coloured. */
static int role_of(const struct doc *d, const char *what)
{
	const struct doc_line *l = &d->lines[d->n - 1];
	const char *p = strstr(l->text, what);
	size_t off;

	if (!p)
		return -1;
	off = (size_t)(p - l->text);
	for (int i = 0; i < l->nsegs; i++)
		if (off >= l->segs[i].off && off < l->segs[i].off + l->segs[i].len)
			return l->segs[i].role;
	return -1;
}

static void colour(struct doc *d, const char *line, int *in_comment)
{
	doc_newline(d);
	syntax_line(d, line, strlen(line), in_comment);
}

static void test_tokens(void **state)
{
	struct doc d;
	int c = 0;

	(void)state;
	doc_init(&d);
	colour(&d, "extern \"C\" __global__ void k(const float *x, int n) { return; }", &c);
	assert_int_equal(role_of(&d, "extern"), ROLE_KEYWORD);
	assert_int_equal(role_of(&d, "\"C\""), ROLE_STRING);
	assert_int_equal(role_of(&d, "__global__"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "void"), ROLE_TYPE);
	assert_int_equal(role_of(&d, "const"), ROLE_KEYWORD);
	assert_int_equal(role_of(&d, "float"), ROLE_TYPE);
	assert_int_equal(role_of(&d, "return"), ROLE_KEYWORD);
	assert_int_equal(role_of(&d, " k("), ROLE_CODE);
	colour(&d, "long long i = blockIdx.x * blockDim.x + threadIdx.x; __syncthreads(); atomicAdd(p, 1);", &c);
	assert_int_equal(role_of(&d, "blockIdx"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "threadIdx"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "__syncthreads"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "atomicAdd"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "long"), ROLE_TYPE);
	colour(&d, "y = 1e-5f + 0x1F + 3.5 + .25 + 1'000; s = 'a'; t = \"x\\\"y\"; size_t n; __half h;", &c);
	assert_int_equal(role_of(&d, "1e-5f"), ROLE_NUMLIT);
	assert_int_equal(role_of(&d, "0x1F"), ROLE_NUMLIT);
	assert_int_equal(role_of(&d, "3.5"), ROLE_NUMLIT);
	assert_int_equal(role_of(&d, ".25"), ROLE_NUMLIT);
	assert_int_equal(role_of(&d, "'a'"), ROLE_STRING);
	assert_int_equal(role_of(&d, "y\"; size_t"), ROLE_STRING); /* the escaped quote stays inside */
	assert_int_equal(role_of(&d, "size_t"), ROLE_TYPE);
	assert_int_equal(role_of(&d, "__half"), ROLE_TYPE);
	/* a digit inside a name is not a number */
	colour(&d, "float2 v2 = x2;", &c);
	assert_int_equal(role_of(&d, "float2"), ROLE_TYPE);
	assert_int_equal(role_of(&d, "v2"), ROLE_CODE);
	doc_free(&d);
}

static void test_comments_and_directives(void **state)
{
	struct doc d;
	int c = 0;

	(void)state;
	doc_init(&d);
	colour(&d, "// @kbx launch k<<<cdiv(n, 256), 256>>>(x, y, n)", &c);
	assert_int_equal(role_of(&d, "launch"), ROLE_KBXLINE);
	colour(&d, "int a; // plain comment with int", &c);
	assert_int_equal(role_of(&d, "plain"), ROLE_COMMENT);
	assert_int_equal(role_of(&d, "int a"), ROLE_TYPE);
	colour(&d, "int b; /* starts here", &c);
	assert_int_equal(c, 1);
	assert_int_equal(role_of(&d, "starts"), ROLE_COMMENT);
	colour(&d, "   still float comment", &c);
	assert_int_equal(role_of(&d, "float"), ROLE_COMMENT);
	colour(&d, "ends */ float z;", &c);
	assert_int_equal(c, 0);
	assert_int_equal(role_of(&d, "ends"), ROLE_COMMENT);
	assert_int_equal(role_of(&d, "float"), ROLE_TYPE);
	colour(&d, "a = 1; /* one line */ b = 2;", &c);
	assert_int_equal(c, 0);
	assert_int_equal(role_of(&d, "one"), ROLE_COMMENT);
	assert_int_equal(role_of(&d, "b ="), ROLE_CODE);
	colour(&d, "#include <cuda_fp16.h>", &c);
	assert_int_equal(role_of(&d, "#include"), ROLE_PREPROC);
	assert_int_equal(role_of(&d, "<cuda_fp16.h>"), ROLE_STRING);
	colour(&d, "  #  define N 4", &c);
	assert_int_equal(role_of(&d, "define"), ROLE_PREPROC);
	assert_int_equal(role_of(&d, "4"), ROLE_NUMLIT);
	/* "//" inside a string is not a comment */
	colour(&d, "s = \"http://x\"; int q;", &c);
	assert_int_equal(role_of(&d, "int q"), ROLE_TYPE);
	doc_free(&d);
}

static void test_word_roles(void **state)
{
	static const char *const kw[] = { "alignas", "break", "constexpr", "if", "reinterpret_cast", "return",
					  "static", "static_assert", "static_cast", "struct", "template", "this",
					  "throw", "true", "try", "typedef", "typename", "while" };
	static const char *const ty[] = { "bool", "char", "dim3", "double", "float4", "half2", "int", "long4",
					  "longlong2", "nv_bfloat162", "short", "uchar4", "unsigned", "void",
					  "uint64_t" };

	(void)state;
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (syntax_word_role(kw[i], strlen(kw[i])) != ROLE_KEYWORD)
			fail_msg("'%s' is not a keyword", kw[i]);
	for (size_t i = 0; i < sizeof(ty) / sizeof(ty[0]); i++)
		if (syntax_word_role(ty[i], strlen(ty[i])) != ROLE_TYPE)
			fail_msg("'%s' is not a type", ty[i]);
	assert_int_equal(syntax_word_role("warpSize", 8), ROLE_BUILTIN);
	assert_int_equal(syntax_word_role("gelu", 4), ROLE_CODE);
	assert_int_equal(syntax_word_role("returns", 7), ROLE_CODE);
}

static uint64_t rng = 88172645463325252ULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* Colouring keeps printable ASCII text byte for byte, whatever it is. */
static void test_garbage(void **state)
{
	static const char alphabet[] = "abcxyz_019.'\"\\/*#<> \t(){};@eE+-xX";
	char line[200];
	struct doc d;
	int c = 0, q = 0;

	(void)state;
	doc_init(&d);
	for (int i = 0; i < 40000; i++) {
		size_t n = next() % sizeof(line);
		const struct doc_line *l;
		size_t total = 0;

		for (size_t k = 0; k < n; k++)
			line[k] = alphabet[next() % (sizeof(alphabet) - 1)];
		for (size_t k = 0; k < n; k++)
			if (line[k] == '\t')
				line[k] = ' ';
		doc_clear(&d);
		doc_newline(&d);
		/* every other line as Python: its scanner must keep the text whole too */
		syntax_line_lang(&d, line, n, i % 2 ? &q : &c, i % 2);
		l = &d.lines[0];
		assert_int_equal(l->len, n);
		assert_memory_equal(l->text, line, n);
		for (int s = 0; s < l->nsegs; s++)
			total += l->segs[s].len;
		assert_int_equal(total, n);
	}
	/* any bytes at all: no crash, no read past the line */
	for (int i = 0; i < 5000; i++) {
		size_t n = next() % sizeof(line);

		for (size_t k = 0; k < n; k++)
			line[k] = (char)(next() & 0xff);
		doc_clear(&d);
		doc_newline(&d);
		syntax_line(&d, line, n, &c);
	}
	doc_free(&d);
	syntax_cleanup();
}

static void colour_py(struct doc *d, const char *line, int *in_string)
{
	doc_newline(d);
	syntax_line_python(d, line, strlen(line), in_string);
}

/* Python (a Triton candidate): keywords, decorators, strings with prefixes, triple-quoted strings
 * across lines, # comments and @kbx lines, numbers; the text is never changed. */
static void test_python(void **state)
{
	struct doc d;
	int q = 0;

	(void)state;
	doc_init(&d);
	colour_py(&d, "@triton.jit", &q);
	assert_int_equal(role_of(&d, "@triton.jit"), ROLE_PREPROC);
	colour_py(&d, "def k(x_ptr, n, BLOCK: tl.constexpr):  # the kernel", &q);
	assert_int_equal(role_of(&d, "def"), ROLE_KEYWORD);
	assert_int_equal(role_of(&d, "constexpr"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "# the kernel"), ROLE_COMMENT);
	assert_int_equal(role_of(&d, "x_ptr"), ROLE_CODE);
	colour_py(&d, "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32) if True else None", &q);
	assert_int_equal(role_of(&d, "load"), ROLE_BUILTIN);
	assert_int_equal(role_of(&d, "0.0"), ROLE_NUMLIT);
	assert_int_equal(role_of(&d, "float32"), ROLE_TYPE);
	assert_int_equal(role_of(&d, "True"), ROLE_KEYWORD);
	colour_py(&d, "s = f'{n}' + r\"\\d\" + 'it\\'s' + 1e-5 + 0x1F", &q);
	assert_int_equal(role_of(&d, "f'{n}'"), ROLE_STRING);
	assert_int_equal(role_of(&d, "r\""), ROLE_STRING);
	assert_int_equal(role_of(&d, "1e-5"), ROLE_NUMLIT);
	assert_int_equal(role_of(&d, "0x1F"), ROLE_NUMLIT);
	colour_py(&d, "x = 1  # @kbx expect pass", &q);
	assert_int_equal(role_of(&d, "# @kbx"), ROLE_KBXLINE);
	colour_py(&d, "    \"\"\"A docstring # not a comment", &q);
	assert_int_equal(q, '"');
	assert_int_equal(role_of(&d, "# not"), ROLE_STRING);
	colour_py(&d, "still 'inside' def", &q);
	assert_int_equal(role_of(&d, "def"), ROLE_STRING);
	colour_py(&d, "ends here\"\"\" + def_x", &q);
	assert_int_equal(q, 0);
	assert_int_equal(role_of(&d, "def_x"), ROLE_CODE);
	assert_string_equal(d.lines[d.n - 1].text, "ends here\"\"\" + def_x");
	doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_comments_and_directives),
		cmocka_unit_test(test_word_roles),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_python),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
