/*
 * triton.h - a kernel from Triton's cache as a kbx candidate.
 *
 * A Triton cache entry (~/.triton/cache/<hash>/) holds one compiled kernel: <name>.json (its
 * metadata), <name>.cubin and <name>.ptx, <name>.ttir (its Triton IR), and more. kbx runs it
 * without NVRTC: the image is the cubin (the PTX when there is none: the driver JIT-compiles
 * it), and the launch is a launch line (`kbx run --launch` or DIR/kbx-launch.txt) completed
 * from the metadata:
 *
 *     gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)
 *
 *   kernel         metadata "name"
 *   block          32 x "num_warps" (may be written; it must then agree)
 *   shared memory  "shared" (likewise)
 *   cooperative    "launch_cooperative_grid"
 *   arguments      the kernel's visible parameters, as the signature of its Triton IR (the
 *                  `tt.func` of <name>.ttir, or of <name>.source) lists them: constexpr
 *                  parameters and integers Triton specialised to the constant 1 are not there.
 *                  Each argument must have its parameter's type: a pointer takes a task buffer
 *                  of that dtype, a scalar the same scalar type (Triton passes Python ints that
 *                  fit as i32: write i32(n) for an i64 task scalar)
 *   hidden         what Triton's launcher appends after them: nothing up to 3.2; a global
 *                  scratch pointer in 3.3 and 3.4; a global and a profile scratch pointer from
 *                  3.5 on. A pointer whose size in the metadata ("global_scratch_size",
 *                  "profile_scratch_size") is 0 is passed as null; otherwise it gets a scratch
 *                  buffer of that size times the number of programs (grid x * y * z)
 *
 * The number of hidden parameters is the number the binary declares (the cubin's .nv.info
 * section, or the PTX's .entry) less the signature's; the metadata must describe as many.
 * All of this is checked without a GPU; on one, the engine's ABI check (cuFuncGetParamInfo)
 * checks the completed launch again. Kernels that need a cluster launch (num_ctas > 1) or take
 * tensor descriptors are refused with a message that says so.
 */
#ifndef KBX_TRITON_H
#define KBX_TRITON_H

#include <stddef.h>

#include "launch.h"
#include "result.h"
#include "status.h"
#include "task.h"

/* The file in a cache entry that may hold the launch line (one line; `#` starts a comment). */
#define TRITON_LAUNCH_FILE "kbx-launch.txt"

struct triton_param {
	char *name;          /* from the IR (%x_ptr, or loc("x_ptr")); NULL when it says only %argN */
	char *type;          /* as the IR writes it: "!tt.ptr<f32>", "i32" */
	int is_ptr;
	char elem[32];       /* the pointee's type for a pointer, else the type: "f32", "i32" */
	int divisibility;    /* tt.divisibility, 0 when absent */
};

struct triton_kernel {
	char *dir;
	char *name;                   /* metadata "name": the kernel's symbol */
	char *version;                /* "triton_version" (written from 3.3 on), or NULL */
	int num_warps, num_ctas, shared;
	int arch;                     /* target arch (90), 0 when the metadata has none */
	int cooperative;              /* launch_cooperative_grid */
	int meta_hidden;              /* hidden parameters the metadata describes: 0, 1 or 2 */
	long long global_scratch_size, global_scratch_align;
	long long profile_scratch_size, profile_scratch_align;
	struct triton_param *params;  /* the visible parameters */
	int nparams;
	int declared;                 /* parameters the binary declares; -1 when unknown */
	size_t *declared_sizes;       /* their sizes in bytes */
	unsigned char *image;         /* the cubin, or the PTX with its NUL */
	size_t image_size;
	int image_is_ptx;
	char *image_path, *ir_path, *meta_path;
	char *launch;                 /* the launch line of DIR/kbx-launch.txt, or NULL */
	int launch_line;
};

/* Read a cache entry. Errors: KBX_ENOTFOUND (no such folder, no metadata, no cubin or PTX, no
 * IR), KBX_EPARSE (bad JSON, IR without the kernel's signature, bad kbx-launch.txt), KBX_EINVAL
 * (what kbx cannot run: another backend, num_ctas > 1, tensor descriptors), each naming the file. */
enum kbx_status triton_load(const char *dir, struct triton_kernel *out);
void triton_kernel_free(struct triton_kernel *k);

/* The parts of triton_load, for tests. `path` names the text in messages. */
enum kbx_status triton_parse_metadata(const char *json, const char *path, struct triton_kernel *k);
enum kbx_status triton_parse_signature(const char *ir, const char *path, const char *name,
				       struct triton_param **params, int *nparams);
void triton_params_free(struct triton_param *p, int n);
/* Parameters the binary declares for kernel `name`, with their sizes (*sizes malloc'd, or NULL
 * when none); -1 when the image does not say (not an ELF, no .nv.info for the kernel, no .entry). */
int triton_binary_params(const void *image, size_t size, int is_ptx, const char *name, size_t **sizes);

/*
 * Complete the launch line `launch` (NULL: the one of DIR/kbx-launch.txt) into spec: one launch,
 * plus a scratch declaration for each hidden pointer that needs memory. `where` names the line
 * in messages ("--launch"; NULL for kbx-launch.txt). `sms` replaces the name sms in the scratch
 * sizes (the grid may use it; scratch sizes are evaluated without it).
 *
 * Returns KBX_EPARSE for a launch line that does not parse ("'--launch' column 12: ..."),
 * KBX_EINVAL when there is no launch line at all; KBX_OK with a message in `why` when the launch
 * disagrees with the kernel (an ABI error: "parameter 3 'n' is i32 in the Triton signature but
 * 'n' is i64; write i32(n)"); KBX_OK with *why == '\0' when it fits. *notes (may be NULL) gets
 * warnings, one a line, or NULL (tt.divisibility specialisations of scalar parameters).
 */
enum kbx_status triton_build_spec(const struct triton_kernel *k, const struct task *t, const char *launch,
				  const char *where, int sms, struct kernel_spec *spec, char *why, size_t whylen,
				  char **notes);

/* One line saying what the entry holds, for logs. Caller frees. */
char *triton_describe(const struct triton_kernel *k);

/*
 * For the engine: load DIR and build its launch as the candidate. `device_arch` is the GPU's
 * (90; 0 without one): a binary for another GPU is an ABI error. Everything wrong with the
 * entry or its launch line becomes a failed compile result (cr->ok = 0, one diagnostic);
 * a disagreement between launch and kernel, a message in `why`. On success *image (the cubin,
 * or NUL-terminated PTX) is malloc'd for the caller. Returns an error only when kbx failed.
 */
enum kbx_status triton_prepare(const struct task *t, const char *dir, const char *launch, int device_arch, int sms,
			       struct kernel_spec *spec, struct compile_result *cr, void **image, size_t *image_size,
			       char *why, size_t whylen);

/* The text kbx records as a Triton candidate's source: where it came from, the launch line, the
 * binary's SHA-256 and the kernel's Triton IR. Fails as triton_load does. */
enum kbx_status triton_source_text(const char *dir, const char *launch, char **out);

#endif
