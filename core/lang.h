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

enum cand_lang { LANG_CUDA, LANG_PYTHON };

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
