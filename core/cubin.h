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
 *
 * It also lists the image's mutable device globals (cubin_globals): every symbol of type OBJECT
 * defined in a section the ELF flags say is allocated and writable (.nv.global, zero-filled at
 * load; .nv.global.init, loaded with its bytes), other than shared and local memory. That is
 * what the source compiled to, however it was spelled (`extern "C" __device__ int g;`,
 * `__device__ int h = int();`, a macro, a variable template, `static`, a namespace, or a plain
 * `int g;` under NVRTC's -default-device); `__constant__` data (.nv.constant*) is read-only and
 * not listed. The engine reports each one and fails a candidate whose global does not hold its
 * load-time value after a call (doc/trust.md says why).
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

/* One mutable device global of an image. */
struct cubin_global {
	char *symbol;           /* as in the image: "g", "_ZN2ns5in_nsE" */
	char *name;             /* the source's spelling: "g", "ns::in_ns", "tvar<...>" */
	char *section;          /* ".nv.global" or ".nv.global.init" */
	size_t size;            /* bytes */
	unsigned char *init;    /* its value when the module is loaded (size bytes) */
};

/* The mutable device globals of an image, in symbol-table order; *out is malloc'd (NULL when
 * there are none). KBX_EPARSE when the image is not an ELF image this parser understands. */
enum kbx_status cubin_globals(const void *image, size_t size, struct cubin_global **out, int *count);
void cubin_globals_free(struct cubin_global *g, int n);

/* The source-level name of symbol `sym`: itself unless it is an Itanium-mangled C++ name, whose
 * nested names are joined with "::" and whose template arguments are shown as "<...>";
 * malloc'd. */
char *cubin_demangle(const char *sym);

/* The first line (1-based) of `src` on which the last component of `name` ("in_ns" of
 * "ns::in_ns") appears as a whole word outside comments, string literals and preprocessor lines;
 * 0 when none does. */
int cubin_global_line(const char *src, const char *name);

/* Whether global g is the source's own and writable, so worth a warning: not a toolkit header's
 * (names in cuda::, std::, cooperative_groups::, cub::, thrust::, or reserved ones starting
 * with "__"), and not declared const or constexpr on the line that names it. *line is that line
 * (0 when the source never spells the name: a token-pasted one, say, which is reported too). */
int cubin_global_is_own(const char *src, const struct cubin_global *g, int *line);

#endif
