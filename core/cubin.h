/*
 * cubin.h - what a compiled kernel's ELF image (a cubin) says about its kernels, read without a
 * GPU: whether a kernel is there, and the size of each of its parameters.
 *
 * On a GPU the engine asks the driver (cuFuncGetParamInfo); without one, this lets `kbx run`,
 * `kbx eval` and CI find a launch line that passes the wrong number or size of arguments
 * (abi_error) already at the compile stage; a Triton cache entry's cubin (triton.c) is read the
 * same way. The layout used: section ".text.NAME" holds kernel
 * NAME's code; section ".nv.info.NAME" holds attribute records (format byte, attribute byte,
 * then a 16-bit value, or a 16-bit size and that many bytes for format 4), among them one
 * EIATTR_KPARAM_INFO (0x17) per parameter: u32 index, u16 ordinal, u16 offset, u32 flags whose
 * bits 18..31 are the parameter's size in bytes. This is NVIDIA's undocumented format, so
 * anything unexpected gives KBX_EPARSE and the caller skips the check rather than guess.
 */
#ifndef KBX_CUBIN_H
#define KBX_CUBIN_H

#include <stddef.h>

#include "status.h"

/* *count parameters of kernel `name` and their sizes (up to max of them in sizes[]).
 * KBX_ENOTFOUND when the image has no kernel of that name; KBX_EPARSE when the image is not a
 * 64-bit little-endian ELF this parser understands. */
enum kbx_status cubin_kernel_params(const void *image, size_t size, const char *name, size_t *sizes, int max,
				    int *count);

#endif
