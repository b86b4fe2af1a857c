/*
 * lang.h - which language a candidate is written in.
 *
 * kbx takes CUDA C++ (compiled by NVRTC, launched by its launch lines) and, as KernelBenchX's
 * own users write them, Python modules with Triton kernels (run by the Python worker,
 * pyworker.h). A file says so by its name (.py, or .cu/.cuh/.cuda); pasted text and the
 * "predict" of a predictions.jsonl say so by their content.
 */
#ifndef KBX_LANG_H
#define KBX_LANG_H

#include <stddef.h>

#include "status.h"

enum cand_lang { LANG_CUDA, LANG_PYTHON };

/*
 * What a candidate source may be, whatever the way in (`kbx run` and `kbx export` files, `kbx
 * eval` items, the explorer's load, paste and $EDITOR): text without NUL bytes, of at most
 * KBX_SOURCE_MAX bytes. The largest source in the catalogue is about 34 KB (LinearAlgebra/eig),
 * so 1 MiB leaves room for any real kernel while keeping what a candidate can cost (static rules,
 * NVRTC, the history's copy) bounded. The messages never quote the bytes:
 *   'x.bin' is not a text file (it holds NUL bytes): a candidate is CUDA or Python source
 *   'big.cu' is 8.0 MiB: a candidate source may be at most 1 MiB (KBX_SOURCE_MAX)
 */
#define KBX_SOURCE_MAX (1024u * 1024u)

/* KBX_OK, or KBX_EINVAL with one of the messages above (name says what the text is). */
enum kbx_status lang_check_source(const char *name, const char *text, size_t len);
/* read_file and lang_check_source; a regular file over the limit is refused before reading. */
enum kbx_status lang_read_source(const char *path, char **out, size_t *len);

/* By the name's extension when it has a known one, else by the text (name may be NULL). */
enum cand_lang lang_detect(const char *name, const char *text);
/* By the text alone: Python when it has Python's statements (import, def, decorators) and no
 * sign of CUDA (__global__, #include, a launch line). */
enum cand_lang lang_of_text(const char *text);
const char *lang_name(enum cand_lang l);   /* "cuda", "python" */

/* The first fenced block of a markdown answer ("```python\n...\n```"), else the text itself;
 * malloc'd. An unclosed fence runs to the end. */
char *lang_strip_fences(const char *text);

#endif
