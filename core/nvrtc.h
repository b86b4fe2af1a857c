/*
 * nvrtc.h - compile CUDA C++ to a cubin with NVRTC (no GPU needed).
 *
 * Options are fixed by kbx: -arch=sm_XY for the device (sm_90 without one), -std=c++17,
 * -default-device, -lineinfo, --include-path for the CUDA include dir (and its cccl/ folder
 * where there is one: CUDA 13 keeps libcu++, which <cooperative_groups.h> needs, there) and
 * tasks/include only. The options string is part of the compile-cache key.
 *
 * Not -no-source-include: NVRTC 13 applies it to every header as well, which breaks the
 * toolkit's own quoted includes of sibling files (<mma.h> includes "mma.hpp",
 * <cooperative_groups.h> "info.h"). Without it, a quoted include is looked up first next to the
 * source: in the directory part of `name`, or the current directory for a bare name. The
 * include gate below lets only "kbx/..." through in quotes, so the one thing left is a kbx/
 * folder there shadowing tasks/include/kbx: pass a bare name and compile from a directory
 * without one (or write <kbx/...>).
 *
 * Diagnostics in the log ("name(12): error: ...", "name(3): warning #177-D: ...") are parsed into
 * file, line, column (when given), severity and message.
 *
 * #include and untrusted sources: -no-source-include and the two include paths do not stop
 * NVRTC from opening an ABSOLUTE path: `#include "/etc/passwd"` (or `<../../etc/passwd>`
 * relative to an include path) is read, and its lines come back quoted in the compile log.
 * nvrtc_compile therefore runs nvrtc_source_includes_ok first and does not call NVRTC at all
 * for a source it rejects. Allowed: `#include <relative/path.h>` and `#include "kbx/..."`,
 * with no `..` component; rejected: absolute paths, `..`, other quoted paths, includes
 * computed by a macro (`#include NAME`), the same forms in __has_include, #include_next,
 * #import and #embed. The scan follows the preprocessor's own reading: line splices
 * (backslash-newline), comments (also between `#` and `include`), the `%:` digraph, string,
 * character and raw string literals and digit separators, so that a directive cannot hide
 * from it, nor text inside a comment or string be taken for one. What the compiler might read
 * differently (a lone carriage return, a backslash followed by blanks at a line's end, an
 * unterminated comment or raw string, a directive name spelled with \u escapes) is rejected.
 * Directives inside `#if 0` are checked too. Known limit: NVRTC accepts a __has_include built
 * by token pasting (`CAT(__has_, include)("/x")`), which tells whether a file exists (not
 * what it holds); the gate does not follow macros and lets that through.
 */
#ifndef KBX_NVRTC_H
#define KBX_NVRTC_H

#include <stddef.h>

#include "status.h"

struct nvrtc_diag {
	char *file;             /* "" when the log line names none (ptxas, option errors) */
	int line, col;          /* 0 when unknown; col from NVRTC's caret line, in bytes */
	char *severity;         /* "error", "warning", "remark", "note" */
	/* First line: the text ("... [#177-D]" for numbered warnings, "ptx line 25: ..." for
	 * ptxas). Then, after '\n', up to 6 continuation lines NVRTC printed under it: the
	 * source line echo, the caret, "detected during instantiation of ...". */
	char *message;
};

struct nvrtc_output {
	int ok;                 /* 1 when a cubin was produced */
	char *log;              /* the compile log (may be empty), truncated to a sane size */
	void *cubin;
	size_t cubin_size;
	struct nvrtc_diag *diags;
	int ndiags;
	double seconds;
};

int nvrtc_built(void);
/* NVRTC's version, e.g. "13.0". */
const char *nvrtc_version(void);

/* The option list kbx uses for arch (e.g. 90), as one string for cache keys and display. */
char *nvrtc_options_string(int arch, const char *cuda_include, const char *kbx_include);

/* Compile src (named `name` in diagnostics; NULL: "candidate.cu") for sm_<arch> (arch <= 0:
 * 90). cuda_include NULL means nvrtc_cuda_include(); a NULL or empty include dir is left out.
 * A compile error is not a failure of this call: it returns KBX_OK with out->ok = 0 and the
 * log; a rejected #include (see above) is reported the same way, as an error diagnostic on
 * its line, without calling NVRTC. KBX_ENVRTC means NVRTC itself failed (an architecture it
 * does not support, say); out is then empty. out->log is cut at 64 KiB, with a note saying so. */
enum kbx_status nvrtc_compile(const char *src, const char *name, int arch, const char *cuda_include,
			      const char *kbx_include, struct nvrtc_output *out);
void nvrtc_output_free(struct nvrtc_output *out);

/* Parse a log into diagnostics (exposed for tests). Returns the count. */
int nvrtc_parse_log(const char *log, struct nvrtc_diag **out);
void nvrtc_diags_free(struct nvrtc_diag *d, int n);

/* The CUDA include directory configured at build time (or $KBX_CUDA_INCLUDE). */
const char *nvrtc_cuda_include(void);

/* 1 when every #include-like directive of src is allowed (see the top of this file); else 0,
 * and *why (when why is not NULL; free it) says which line and why: "line 3: #include
 * "/etc/passwd": absolute path". Needs no NVRTC: works in a build without CUDA. */
int nvrtc_source_includes_ok(const char *src, char **why);

#endif
