/* Themes: the built-in default, the shipped theme files, colour words, the 8/16-colour fallback,
 * and broken files that must give a message naming the line and the built-in default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "tui/theme.h"

static const char *srcdir(void)
{
	const char *s = getenv("KBX_SRCDIR");

	return s && *s ? s : KBX_SRCDIR;
}

static void assert_is_builtin(const struct theme *th)
{
	struct theme def;

	theme_builtin(&def);
	assert_memory_equal(th->roles, def.roles, sizeof(def.roles));
	assert_int_equal(th->color, 1);
}

static void test_builtin(void **state)
{
	struct theme th;

	(void)state;
	theme_builtin(&th);
	assert_string_equal(th.name, "default");
	assert_int_equal(th.color, 1);
	for (int r = 0; r < ROLE_COUNT; r++) {
		assert_true(strlen(role_name(r)) > 0);
		assert_int_equal(role_parse(role_name(r)), r);
		assert_true(strlen(role_description(r)) > 0);
	}
	assert_int_equal(role_parse("nosuchrole"), -1);
	/* the selection must stay visible without colour */
	assert_true(role_mono_attrs(ROLE_SELECT) & TA_REVERSE);
}

static void test_colour_words(void **state)
{
	unsigned a;
	int ok;

	(void)state;
	assert_int_equal(theme_color_parse("default"), C_DEFAULT);
	assert_int_equal(theme_color_parse("red"), C_RED);
	assert_int_equal(theme_color_parse("RED"), C_RED);
	assert_int_equal(theme_color_parse("brightred"), C_BRED);
	assert_int_equal(theme_color_parse("gray"), C_GRAY);
	assert_int_equal(theme_color_parse("color208"), 208);
	assert_int_equal(theme_color_parse("17"), 17);
	assert_int_equal(theme_color_parse("#ff0000"), 196);
	assert_int_equal(theme_color_parse("#000000"), 16);
	assert_int_equal(theme_color_parse("#808080"), 244);
	assert_int_equal(theme_color_parse("256"), -2);
	assert_int_equal(theme_color_parse("color-1"), -2);
	assert_int_equal(theme_color_parse("#ff00"), -2);
	assert_int_equal(theme_color_parse("#gg0000"), -2);
	assert_int_equal(theme_color_parse("purpel"), -2);
	a = theme_attr_parse("bold", &ok);
	assert_true(ok);
	assert_int_equal(a, TA_BOLD);
	theme_attr_parse("blink", &ok);
	assert_false(ok);
}

static void test_fallback(void **state)
{
	unsigned attrs = 0;

	(void)state;
	/* 256 colours: unchanged */
	assert_int_equal(theme_color_fallback(208, 256, 1, &attrs), 208);
	assert_int_equal(attrs, 0);
	/* 8 colours: a bright colour becomes its plain one, bold for text */
	assert_int_equal(theme_color_fallback(C_BRED, 8, 1, &attrs), C_RED);
	assert_true(attrs & TA_BOLD);
	attrs = 0;
	assert_int_equal(theme_color_fallback(C_BRED, 8, 0, &attrs), C_RED);
	assert_int_equal(attrs, 0);
	/* a 256-palette red on 16 colours is bright red, on 8 red */
	assert_int_equal(theme_color_fallback(196, 16, 1, NULL), C_BRED);
	assert_int_equal(theme_color_fallback(196, 8, 1, NULL), C_RED);
	/* a dark grey background on 8 colours is black */
	assert_int_equal(theme_color_fallback(236, 8, 0, NULL), C_BLACK);
	assert_int_equal(theme_color_fallback(C_DEFAULT, 8, 1, NULL), C_DEFAULT);
}

static void test_parse_good(void **state)
{
	struct theme th;
	const char *text = "; comment\n[theme]\ndescription = test theme\ncolor = yes\n\n[colors]\n"
			   "title = brightwhite blue bold\npass = green\nselect = reverse\nheat4 = #ff0000 default bold underline\n";

	(void)state;
	assert_int_equal(theme_parse(text, "themes/test.theme", &th), KBX_OK);
	assert_string_equal(th.name, "test");
	assert_string_equal(th.description, "test theme");
	assert_int_equal(th.roles[ROLE_TITLE].fg, C_BWHITE);
	assert_int_equal(th.roles[ROLE_TITLE].bg, C_BLUE);
	assert_int_equal(th.roles[ROLE_TITLE].attrs, TA_BOLD);
	assert_int_equal(th.roles[ROLE_PASS].fg, C_GREEN);
	assert_int_equal(th.roles[ROLE_PASS].bg, C_DEFAULT);
	assert_int_equal(th.roles[ROLE_SELECT].attrs, TA_REVERSE);
	assert_int_equal(th.roles[ROLE_HEAT4].fg, 196);
	assert_int_equal(th.roles[ROLE_HEAT4].attrs, TA_BOLD | TA_UNDERLINE);
	assert_true(th.set[ROLE_PASS]);
	assert_false(th.set[ROLE_FAIL]);
	/* roles the file leaves alone keep the built-in style */
	{
		struct theme def;

		theme_builtin(&def);
		assert_memory_equal(&th.roles[ROLE_FAIL], &def.roles[ROLE_FAIL], sizeof(def.roles[0]));
	}
}

struct bad {
	const char *text;
	int line;
	const char *says;
};

static void test_parse_broken(void **state)
{
	static const struct bad bad[] = {
		{ "[colors]\ntitle = red\npurple_role = red\n", 3, "unknown colour role 'purple_role'" },
		{ "[colors]\n\n\npass = purpel\n", 4, "unknown colour or attribute 'purpel' for role 'pass'" },
		{ "[colors]\npass = red green blue\n", 2, "a third colour 'blue'" },
		{ "[palette]\npass = red\n", 2, "unknown section 'palette'" },
		{ "[theme]\ncolour = maybe\n", 2, "'maybe' for 'colour' is not yes or no" },
		{ "[theme]\nauthor = me\n", 2, "unknown key 'author'" },
		{ "[colors]\npass = red\nthis line is not ini\n", 3, "not an INI line" },
		{ "[colors]\npass =\n", 2, "no colour or attribute for role 'pass'" },
	};
	char msg[512], want[64];
	struct theme th;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(theme_parse(bad[i].text, "themes/broken.theme", &th), KBX_EPARSE);
		snprintf(msg, sizeof(msg), "%s", kbx_last_error());
		snprintf(want, sizeof(want), "in 'themes/broken.theme' line %d", bad[i].line);
		if (!strstr(msg, want) || !strstr(msg, bad[i].says))
			fail_msg("case %zu: message '%s' lacks '%s' or '%s'", i, msg, want, bad[i].says);
		assert_is_builtin(&th);
	}
}

static void test_long_line(void **state)
{
	struct sbuf sb = SBUF_INIT;
	struct theme th;

	(void)state;
	sbuf_adds(&sb, "[theme]\ndescription = ");
	for (int i = 0; i < 300; i++)
		sbuf_adds(&sb, "x");
	sbuf_adds(&sb, "\n");
	assert_int_equal(theme_parse(sb.buf, "long.theme", &th), KBX_EPARSE);
	assert_non_null(strstr(kbx_last_error(), "line too long"));
	assert_non_null(strstr(kbx_last_error(), "'long.theme' line 2"));
	assert_is_builtin(&th);
	sbuf_release(&sb);
}

static void test_files(void **state)
{
	char *dir = xasprintf("%s/themes", srcdir()), *path, **names;
	static const char *const need[] = { "default", "light", "high-contrast", "mono" };
	struct theme th;
	int n;

	(void)state;
	n = theme_list(dir, &names);
	assert_true(n >= 4);
	assert_string_equal(names[0], "default");
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int found = 0;

		for (int k = 0; k < n; k++)
			found |= !strcmp(names[k], need[i]);
		assert_true(found);
	}
	for (int k = 0; k < n; k++) {
		path = xasprintf("%s/%s.theme", dir, names[k]);
		if (theme_load(path, &th) != KBX_OK)
			fail_msg("%s", kbx_last_error());
		assert_string_equal(th.name, names[k]);
		free(path);
		path = NULL;
		free(names[k]);
	}
	free(names);
	/* the mono theme has no colours; default.theme spells out the built-in one */
	path = xasprintf("%s/mono.theme", dir);
	assert_int_equal(theme_load(path, &th), KBX_OK);
	assert_int_equal(th.color, 0);
	free(path);
	path = xasprintf("%s/default.theme", dir);
	assert_int_equal(theme_load(path, &th), KBX_OK);
	{
		struct theme def;

		theme_builtin(&def);
		int differ = 0;

		for (int r = 0; r < ROLE_COUNT; r++) {
			if (memcmp(&th.roles[r], &def.roles[r], sizeof(def.roles[r]))) {
				print_error("default.theme and the built-in differ on role '%s'\n", role_name(r));
				differ++;
			}
		}
		assert_int_equal(differ, 0);
	}
	free(path);
	assert_int_equal(theme_load("/nonexistent/x.theme", &th), KBX_EIO);
	assert_non_null(strstr(kbx_last_error(), "/nonexistent/x.theme"));
	assert_is_builtin(&th);
	free(dir);
}

static void test_theme_dir(void **state)
{
	char *d;

	(void)state;
	setenv("KBX_THEMES", "/some/where", 1);
	d = theme_dir("/x/tasks");
	assert_string_equal(d, "/some/where");
	free(d);
	unsetenv("KBX_THEMES");
	/* beside the catalogue */
	{
		char *tasks = xasprintf("%s/tasks/", srcdir()), *want = xasprintf("%s/themes", srcdir());

		d = theme_dir(tasks);
		assert_string_equal(d, want);
		free(d);
		free(tasks);
		free(want);
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* Random and mutated theme text: an answer either way, never a crash or a leak. */
static void test_garbage(void **state)
{
	static const char *const seeds[] = {
		"[theme]\ndescription = x\ncolor = yes\n[colors]\ntitle = brightwhite blue bold\n",
		"[colors]\npass = #00ff00 default underline\nfail = color196\n",
		"[colors]\nselect = reverse\n  continued\n",
	};
	static const char alphabet[] = "[]=;#\n \tabcdefghijklmnopqrstuvwxyz0123456789_-#\x01\xff\xc3\xa9";
	char buf[512];
	struct theme th;

	(void)state;
	for (int i = 0; i < 5000; i++) {
		size_t n;

		if (i % 2) {
			n = next() % (sizeof(buf) - 1);
			for (size_t k = 0; k < n; k++)
				buf[k] = alphabet[next() % (sizeof(alphabet) - 1)];
		} else {
			snprintf(buf, sizeof(buf), "%s", seeds[next() % 3]);
			n = strlen(buf);
			for (int m = 0; m < 4; m++)
				buf[next() % n] = alphabet[next() % (sizeof(alphabet) - 1)];
		}
		buf[n] = '\0';
		if (theme_parse(buf, "fuzz.theme", &th) != KBX_OK)
			assert_non_null(strstr(kbx_last_error(), "fuzz.theme"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_colour_words),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_broken),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_theme_dir),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
