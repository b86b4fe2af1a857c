/* Launch lines against kernel parameters: see abi.h. */
#include "abi.h"

#include <stdint.h>
#include <stdio.h>

#include "cubin.h"

size_t abi_arg_bytes(const struct task *t, const struct launch_arg *a)
{
	const struct task_arg *ta;

	if (!a->name)
		return dtype_size(a->cast);
	ta = task_find_arg(t, a->name);
	if (ta && ta->dir == ARG_SCALAR)
		return dtype_size(ta->dtype);
	return sizeof(uint64_t);  /* a device pointer (CUdeviceptr) */
}

int abi_launch_mismatch(const struct task *t, const struct launch *l, int count, const size_t *sizes, char *why,
			size_t whylen)
{
	int j;

	if (count != l->nargs) {
		snprintf(why, whylen, "line %d: kernel '%s' takes %d parameters but the launch passes %d", l->line,
			 l->kernel, count, l->nargs);
		return 1;
	}
	for (j = 0; j < count && j < 64; j++) {
		size_t want = abi_arg_bytes(t, &l->args[j]);

		if (sizes[j] != want) {
			snprintf(why, whylen, "line %d: kernel '%s' parameter %d ('%s') is %zu bytes but the launch passes %zu bytes",
				 l->line, l->kernel, j + 1, l->args[j].name ? l->args[j].name : l->args[j].expr, sizes[j],
				 want);
			return 1;
		}
	}
	return 0;
}

void abi_no_kernel(const struct launch *l, char *why, size_t whylen)
{
	snprintf(why, whylen, "line %d: the launch names kernel '%s' but the source defines no extern \"C\" __global__ function of that name",
		 l->line, l->kernel);
}

void abi_check_image(const struct task *t, const struct kernel_spec *spec, const void *image, size_t size, char *why,
		     size_t whylen)
{
	int i;

	*why = '\0';
	for (i = 0; i < spec->nlaunches; i++) {
		const struct launch *l = &spec->launches[i];
		size_t sizes[64];
		int count = 0;
		enum kbx_status st = cubin_kernel_params(image, size, l->kernel, sizes, 64, &count);

		if (st == KBX_ENOTFOUND) {
			abi_no_kernel(l, why, whylen);
			return;
		}
		if (st)
			return;
		if (abi_launch_mismatch(t, l, count, sizes, why, whylen))
			return;
	}
}
