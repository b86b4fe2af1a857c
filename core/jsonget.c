#include "jsonget.h"

#include <math.h>

#include "util.h"

/* The key's value when is_type(value) (*found = JSONGET_FOUND), else NULL and *found says what
 * is there instead. */
static const json_t *lookup(const json_t *o, const char *key, int (*is_type)(const json_t *),
			    enum jsonget_found *found)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;

	*found = !v ? JSONGET_ABSENT : is_type(v) ? JSONGET_FOUND : json_is_null(v) ? JSONGET_NULL : JSONGET_WRONG;
	return *found == JSONGET_FOUND ? v : NULL;
}

/* jansson's json_is_* are macros: these can be passed to lookup */
static int is_integer(const json_t *v) { return json_is_integer(v); }
static int is_number(const json_t *v) { return json_is_number(v); }
static int is_boolean(const json_t *v) { return json_is_boolean(v); }
static int is_string(const json_t *v) { return json_is_string(v); }

enum jsonget_found jsonget_int(const json_t *o, const char *key, long long *out)
{
	enum jsonget_found f;
	const json_t *v = lookup(o, key, is_integer, &f);

	if (v)
		*out = (long long)json_integer_value(v);
	return f;
}

enum jsonget_found jsonget_num(const json_t *o, const char *key, double *out)
{
	enum jsonget_found f;
	const json_t *v = lookup(o, key, is_number, &f);

	if (v)
		*out = json_number_value(v);
	return f;
}

enum jsonget_found jsonget_bool(const json_t *o, const char *key, int *out)
{
	enum jsonget_found f;
	const json_t *v = lookup(o, key, is_boolean, &f);

	if (v)
		*out = json_is_true(v);
	return f;
}

enum jsonget_found jsonget_str(const json_t *o, const char *key, const char **out, size_t *len)
{
	enum jsonget_found f;
	const json_t *v = lookup(o, key, is_string, &f);

	if (v) {
		*out = json_string_value(v);
		if (len)
			*len = json_string_length(v);
	}
	return f;
}

long long jsonget_int_or(const json_t *o, const char *key, long long dflt)
{
	long long x = dflt;

	jsonget_int(o, key, &x);
	return x;
}

double jsonget_num_or(const json_t *o, const char *key, double dflt)
{
	double x = dflt;

	jsonget_num(o, key, &x);
	return x;
}

int jsonget_bool_or(const json_t *o, const char *key, int dflt)
{
	int x = dflt;

	jsonget_bool(o, key, &x);
	return x;
}

const char *jsonget_str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = dflt;

	jsonget_str(o, key, &s, NULL);
	return s;
}

char *jsonget_strdup(const json_t *o, const char *key)
{
	const char *s;
	size_t len;

	return jsonget_str(o, key, &s, &len) == JSONGET_FOUND ? xstrndup(s, len) : NULL;
}

json_t *jsonget_measure_or_null(double v)
{
	return v >= 0 && isfinite(v) ? json_real(v) : json_null();
}
