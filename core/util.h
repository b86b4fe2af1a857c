/*
 * util.h - small helpers used everywhere in core/, db/ and tui/.
 *
 * Allocation: xmalloc and friends never return NULL; on exhaustion they print a message and
 * abort (the only sane reaction for an interactive tool; git does the same). Everything else
 * reports errors through status.h.
 *
 * struct sbuf is a growable NUL-terminated string (git's strbuf, reduced).
 */
#ifndef KBX_UTIL_H
#define KBX_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup, and NULL for NULL (optional strings of structs being copied). */
char *xstrdup_or_null(const char *s);
char *xasprintf(const char *fmt, ...) KBX_PRINTF(1, 2);

/* Grow an array `p` of `*cap` elements so that it holds at least `need`. */
#define XGROW(p, need, cap) \
	do { \
		if ((size_t)(need) > (size_t)(cap)) { \
			size_t xg_n = (cap) ? (size_t)(cap) * 2 : 8; \
			while (xg_n < (size_t)(need)) \
				xg_n *= 2; \
			(p) = xrealloc((p), xg_n * sizeof(*(p))); \
			(cap) = xg_n; \
		} \
	} while (0)

struct sbuf {
	char *buf;
	size_t len, cap;
};

#define SBUF_INIT { NULL, 0, 0 }

void sbuf_add(struct sbuf *sb, const char *s, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) KBX_PRINTF(2, 3);
void sbuf_reset(struct sbuf *sb);
/* Hand the string to the caller ("" if empty, never NULL) and reset sb. */
char *sbuf_detach(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);

/* Read a whole file; *out is NUL-terminated, *len excludes the NUL. */
enum kbx_status read_file(const char *path, char **out, size_t *len);
/* Write a whole file atomically (temporary file + rename). */
enum kbx_status write_file(const char *path, const void *data, size_t len);

/* mkdir -p: every missing folder of dir, new ones with this mode; an error names the folder
 * that could not be made (or is not a folder). */
enum kbx_status make_dirs(const char *dir, unsigned mode);
/* Whether path names a regular file / a folder (following links). */
int path_is_file(const char *path);
int path_is_dir(const char *path);
/* An executable by name as the shell finds it: a name with a '/' is taken as it is, any other is
 * looked up in $PATH (an empty element is the current folder; no $PATH: /usr/local/bin:/usr/bin:
 * /bin). The path found in out; 0 when found (an executable regular file), -1 otherwise. */
int path_find_exec(const char *name, char *out, size_t len);

/* Trim ASCII whitespace at both ends, in place; returns s. */
char *str_trim(char *s);
int str_starts_with(const char *s, const char *prefix);

/* SHA-256 of data as 64 lowercase hex digits + NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);

/* FNV-1a 64-bit, for RNG keys (stable across runs and machines). */
uint64_t hash64(const void *data, size_t len, uint64_t h);
#define HASH64_INIT 0xcbf29ce484222325ULL

/* Monotonic seconds. */
double now_seconds(void);

/* Run fn over [0, n) in contiguous ranges on up to 16 threads (one per CPU), at least
 * min_chunk indexes each; each index is handled exactly once, and the caller's results must not
 * depend on the split (the host work on outputs of 100M elements: inputs, comparisons). */
void parallel_for(size_t n, size_t min_chunk, void (*fn)(void *arg, size_t lo, size_t hi), void *arg);

/* How many threads parallel_for would use for plenty of work: one per CPU, at most 16. */
int parallel_width(void);

#endif
