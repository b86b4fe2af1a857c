/*
 * abi.h - does a launch line agree with the kernel it launches? The number of parameters and
 * each one's size, against what the launch passes: a device pointer for a buffer (an in, out or
 * inout argument, or a scratch buffer), the argument's dtype for a scalar, the cast's dtype for
 * an expression. The sizes come from the driver on a GPU (engine.c) or, without one, from the
 * compiled image (cubin.h): the same check, the same messages.
 */
#ifndef KBX_ABI_H
#define KBX_ABI_H

#include <stddef.h>

#include "launch.h"
#include "task.h"

/* Bytes the launch passes for argument a of task t. */
size_t abi_arg_bytes(const struct task *t, const struct launch_arg *a);

/* 1 when launch l disagrees with a kernel of count parameters of these sizes; *why says how
 * ("line 6: kernel 'k' parameter 3 ('n') is 4 bytes but the launch passes 8 bytes"). */
int abi_launch_mismatch(const struct task *t, const struct launch *l, int count, const size_t *sizes, char *why,
			size_t whylen);

/* The message for a launch whose kernel the image does not define. */
void abi_no_kernel(const struct launch *l, char *why, size_t whylen);

/* Every launch of spec against the compiled image; *why is "" when they agree or when the image
 * cannot be read (that is not the candidate's fault, and the GPU checks it again). */
void abi_check_image(const struct task *t, const struct kernel_spec *spec, const void *image, size_t size, char *why,
		     size_t whylen);

#endif
