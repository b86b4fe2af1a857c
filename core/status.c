#include "status.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[2048];

enum kbx_status kbx_verror(enum kbx_status st, const char *fmt, va_list ap)
{
	char msg[sizeof(last_message)];

	/* Format into a copy: callers often pass kbx_last_error() itself as an argument
	 * ("'%s' line %d: %s"), and vsnprintf must not read the buffer it writes. */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	memcpy(last_message, msg, sizeof(last_message));
	return st;
}

enum kbx_status kbx_error(enum kbx_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kbx_verror(st, fmt, ap);
	va_end(ap);
	return st;
}

enum kbx_status kbx_wrap(enum kbx_status st, const char *fmt, ...)
{
	char prefix[1024], old[sizeof(last_message)];
	va_list ap;

	memcpy(old, last_message, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	/* The result may be cut at the buffer size; the start of a message matters most. */
	if (snprintf(last_message, sizeof(last_message), "%s: %s", prefix, old[0] ? old : kbx_status_str(st)) < 0)
		last_message[0] = '\0';
	return st;
}

const char *kbx_last_error(void)
{
	return last_message;
}

void kbx_clear_error(void)
{
	last_message[0] = '\0';
}

const char *kbx_status_str(enum kbx_status st)
{
	switch (st) {
#define KBX_STATUS_CASE(id, text) case id: return text;
	KBX_STATUS_LIST(KBX_STATUS_CASE)
#undef KBX_STATUS_CASE
	}
	return "unknown status";
}
