/*
 * status.h - the one way kbx reports errors.
 *
 * Every fallible function returns an enum kbx_status (KBX_OK is 0). On failure it records a
 * message with kbx_error(), which formats it, keeps it in a per-thread buffer and returns the
 * status, so a failure path reads:
 *
 *     return kbx_error(KBX_EPARSE, "unknown dtype '%s' in '%s' line %d", name, path, line);
 *
 * Codes from CUDA, NVRTC and SQLite are converted where they enter (gpu.c, nvrtc.c, db/),
 * with a message naming the call. Messages are lowercase with no trailing period, the subject
 * quoted. kbx_last_error() returns the latest message; callers add context with kbx_wrap().
 */
#ifndef KBX_STATUS_H
#define KBX_STATUS_H

#include <stdarg.h>

#define KBX_STATUS_LIST(X) \
	X(KBX_OK, "ok") \
	X(KBX_ENOMEM, "out of memory") \
	X(KBX_EIO, "input/output error") \
	X(KBX_EPARSE, "parse error") \
	X(KBX_EINVAL, "invalid argument") \
	X(KBX_ENOTFOUND, "not found") \
	X(KBX_ENODEVICE, "no CUDA device") \
	X(KBX_ENOGPUBUILD, "GPU support was not built") \
	X(KBX_ECUDA, "CUDA error") \
	X(KBX_ENVRTC, "NVRTC error") \
	X(KBX_EDB, "database error") \
	X(KBX_ETIMEOUT, "timed out") \
	X(KBX_EWORKER, "worker failed") \
	X(KBX_ECANCEL, "cancelled")

enum kbx_status {
#define KBX_STATUS_ENUM(id, text) id,
	KBX_STATUS_LIST(KBX_STATUS_ENUM)
#undef KBX_STATUS_ENUM
};

#if defined(__GNUC__)
#define KBX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KBX_PRINTF(a, b)
#endif

/* Record a formatted message for `st` and return `st`. */
enum kbx_status kbx_error(enum kbx_status st, const char *fmt, ...) KBX_PRINTF(2, 3);
enum kbx_status kbx_verror(enum kbx_status st, const char *fmt, va_list ap);

/* Prefix the recorded message with more context ("cannot load task 'x': " + old message). */
enum kbx_status kbx_wrap(enum kbx_status st, const char *fmt, ...) KBX_PRINTF(2, 3);

/* The latest message recorded on this thread ("" if none). */
const char *kbx_last_error(void);
void kbx_clear_error(void);

/* A fixed description of a status code. */
const char *kbx_status_str(enum kbx_status st);

#endif
