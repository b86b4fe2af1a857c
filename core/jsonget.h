/*
 * jsonget.h - reading fields of JSON objects (jansson), one way for all of core/ and cli/.
 *
 * Two kinds of look-up:
 *
 *   strict    jsonget_int / _num / _str / _bool say what the key holds -- absent, null, a value
 *             of the asked type (then *out is set), or something else -- and leave the policy to
 *             the caller (events.c requires every field, triton.c names the bad one).
 *   lenient   jsonget_int_or / _num_or / _bool_or / _strdup give the value when the key holds
 *             one of the asked type, else the default (worker requests, eval's progress records:
 *             files kbx wrote itself, read forgivingly).
 *
 * "Number" means a JSON integer or real, nothing else: the strings "nan", "inf" and "-inf" with
 * which events.h spells non-finite doubles are decoded by events.c. o may be any json_t or NULL;
 * a non-object holds no keys.
 *
 * One writer helper lives here too, because its readers are the lenient getters above:
 * jsonget_measure_or_null, the one spelling of "unknown" for a measurement (a speedup, a time).
 */
#ifndef KBX_JSONGET_H
#define KBX_JSONGET_H

#include <stddef.h>

#include <jansson.h>

enum jsonget_found {
	JSONGET_ABSENT,    /* no such key (or o is not an object) */
	JSONGET_NULL,      /* the key holds null */
	JSONGET_FOUND,     /* a value of the asked type: *out is set */
	JSONGET_WRONG,     /* a value of another type: *out is untouched */
};

enum jsonget_found jsonget_int(const json_t *o, const char *key, long long *out);
enum jsonget_found jsonget_num(const json_t *o, const char *key, double *out);
enum jsonget_found jsonget_bool(const json_t *o, const char *key, int *out);
/* *out points into o (valid while o lives); *len is its length in bytes (it may hold NULs). */
enum jsonget_found jsonget_str(const json_t *o, const char *key, const char **out, size_t *len);

long long jsonget_int_or(const json_t *o, const char *key, long long dflt);
double jsonget_num_or(const json_t *o, const char *key, double dflt);
int jsonget_bool_or(const json_t *o, const char *key, int dflt);
/* The string's value, or dflt (which may be NULL) when the key holds no string. */
const char *jsonget_str_or(const json_t *o, const char *key, const char *dflt);
/* A copy of the string (caller frees), NULL when the key holds no string. */
char *jsonget_strdup(const json_t *o, const char *key);

/* v as a JSON number, or null when v is negative, NaN or infinite (a measurement that is not
 * known). A new reference, never NULL. */
json_t *jsonget_measure_or_null(double v);

#endif
