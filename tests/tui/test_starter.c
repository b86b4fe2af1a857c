/* The starter skeleton the explorer offers: the same text `kbx starter` prints, with the kernel's
 * parameters in argument order, for every task of the catalogue; and it compiles for gelu. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nvrtc.h"
#include "core/task.h"
#include "core/util.h"
#include "core/starter.h"

static struct catalogue cat;

static const char *root(void)
{
	const char *r = getenv("KBX_TASKS");

	return r && *r ? r : KBX_SRCDIR "/tasks";
}

static int setup(void **state)
{
	(void)state;
	if (catalogue_load(root(), &cat) != KBX_OK) {
		fprintf(stderr, "%s\n", kbx_last_error());
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	catalogue_free(&cat);
	return 0;
}

static void test_gelu_exact(void **state)
{
	const struct task *t = catalogue_find(&cat, "Activation/gelu");
	char *s, *want;

	(void)state;
	assert_non_null(t);
	s = starter_text(t);
	want = xasprintf("// Candidate for Activation/gelu: %s\n"
			 "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n"
			 "// @kbx launch gelu_kernel<<<cdiv((n), 256), 256>>>(x, y, n, approximate)\n"
			 "extern \"C\" __global__ void gelu_kernel(const float *x, float *y, long long n, int approximate)\n"
			 "{\n\tlong long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
			 "\tif (i >= (n))\n\t\treturn;\n\t// TODO: compute element i\n}\n",
			 t->summary);
	assert_string_equal(s, want);
	if (nvrtc_built()) {
		struct nvrtc_output out;

		assert_int_equal(nvrtc_compile(s, "starter.cu", 90, NULL, NULL, &out), KBX_OK);
		if (!out.ok)
			fail_msg("the gelu starter does not compile: %s", out.log);
		nvrtc_output_free(&out);
	}
	free(s);
	free(want);
}

static void test_every_task(void **state)
{
	(void)state;
	assert_true(cat.ntasks > 0);
	for (int i = 0; i < cat.ntasks; i++) {
		const struct task *t = cat.tasks[i];
		char *s = starter_text(t), *launch = xasprintf("// @kbx launch %s_kernel<<<", t->name);
		char *sig = xasprintf("extern \"C\" __global__ void %s_kernel(", t->name);
		const char *p = strstr(s, sig);

		assert_non_null(strstr(s, launch));
		assert_non_null(p);
		/* every argument appears in the signature, in order */
		for (int a = 0; a < t->nargs; a++) {
			const char *q = strstr(p, t->args[a].name);

			if (!q)
				fail_msg("%s: argument '%s' missing from the starter", t->id, t->args[a].name);
			p = q + strlen(t->args[a].name);
		}
		free(s);
		free(launch);
		free(sig);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gelu_exact),
		cmocka_unit_test(test_every_task),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
