/* core/jsonget.c: what each look-up says for an absent key, null, the asked type and another
 * type, the lenient defaults, and the one spelling of an unknown measurement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonget.h"

static json_t *doc(void)
{
	json_t *o = json_loads("{\"i\": 7, \"r\": 2.5, \"b\": true, \"s\": \"a\\u0000b\", \"n\": null, "
			       "\"nan\": \"nan\"}", JSON_ALLOW_NUL, NULL);

	assert_non_null(o);
	return o;
}

static void test_strict(void **state)
{
	json_t *o = doc(), *arr = json_array();
	long long i = -1;
	double d = -1;
	int b = -1;
	const char *s = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(jsonget_int(o, "i", &i), JSONGET_FOUND);
	assert_int_equal(i, 7);
	assert_int_equal(jsonget_int(o, "r", &i), JSONGET_WRONG);
	assert_int_equal(i, 7);
	assert_int_equal(jsonget_int(o, "n", &i), JSONGET_NULL);
	assert_int_equal(jsonget_int(o, "missing", &i), JSONGET_ABSENT);
	/* an integer is a number; the string "nan" is not (events.c decodes that spelling) */
	assert_int_equal(jsonget_num(o, "i", &d), JSONGET_FOUND);
	assert_true(d == 7);
	assert_int_equal(jsonget_num(o, "r", &d), JSONGET_FOUND);
	assert_true(d == 2.5);
	assert_int_equal(jsonget_num(o, "nan", &d), JSONGET_WRONG);
	assert_true(d == 2.5);
	assert_int_equal(jsonget_bool(o, "b", &b), JSONGET_FOUND);
	assert_int_equal(b, 1);
	assert_int_equal(jsonget_bool(o, "i", &b), JSONGET_WRONG);
	assert_int_equal(jsonget_str(o, "s", &s, &len), JSONGET_FOUND);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 3);
	assert_int_equal(jsonget_str(o, "i", &s, NULL), JSONGET_WRONG);
	/* not an object, or no document at all: nothing is there */
	assert_int_equal(jsonget_int(arr, "i", &i), JSONGET_ABSENT);
	assert_int_equal(jsonget_str(NULL, "s", &s, NULL), JSONGET_ABSENT);
	json_decref(arr);
	json_decref(o);
}

static void test_lenient(void **state)
{
	json_t *o = doc();
	char *s;

	(void)state;
	assert_int_equal(jsonget_int_or(o, "i", 3), 7);
	assert_int_equal(jsonget_int_or(o, "b", 3), 3);
	assert_true(jsonget_num_or(o, "r", -1) == 2.5);
	assert_true(jsonget_num_or(o, "n", -1) == -1);
	assert_true(jsonget_num_or(o, "nan", -1) == -1);
	assert_int_equal(jsonget_bool_or(o, "b", 0), 1);
	assert_int_equal(jsonget_bool_or(o, "s", 0), 0);
	assert_string_equal(jsonget_str_or(o, "s", "x"), "a");
	assert_string_equal(jsonget_str_or(o, "i", "x"), "x");
	assert_null(jsonget_str_or(o, "missing", NULL));
	s = jsonget_strdup(o, "s");
	assert_string_equal(s, "a");
	free(s);
	assert_null(jsonget_strdup(o, "n"));
	json_decref(o);
}

/* Negative, NaN and infinite measurements are null alike (cmd_history.c once passed NaN on to
 * json_real, which refuses it); 0 and positive ones are numbers. */
static void test_measure(void **state)
{
	const double unknown[] = { -1, -0.5, NAN, INFINITY, -INFINITY };
	json_t *v;

	(void)state;
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		v = jsonget_measure_or_null(unknown[i]);
		assert_true(json_is_null(v));
		json_decref(v);
	}
	v = jsonget_measure_or_null(0);
	assert_true(json_is_real(v) && json_real_value(v) == 0);
	json_decref(v);
	v = jsonget_measure_or_null(1.5);
	assert_true(json_real_value(v) == 1.5);
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_measure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
