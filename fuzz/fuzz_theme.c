/*
 * fuzz_theme.c - theme file text through tui/theme.c theme_parse (inih and the colour and
 * attribute words), then every role's colours through theme_color_fallback.
 *
 * A parse either succeeds with every colour in -1..255 or fails leaving the built-in default.
 */
#include <stdlib.h>
#include <string.h>

#include "../tui/theme.h"
#include "fuzz.h"

static void check_color(int c)
{
	unsigned attrs = 0;

	if (c < -1 || c > 255)
		abort();
	if (theme_color_fallback(c, 8, 1, &attrs) >= 8 || theme_color_fallback(c, 16, 0, &attrs) >= 16 ||
	    theme_color_fallback(c, 256, 1, &attrs) != c)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct theme th, builtin;

	if (theme_parse(text, "fuzz/fuzz.theme", &th) == KBX_OK) {
		for (int r = 0; r < ROLE_COUNT; r++) {
			check_color(th.roles[r].fg);
			check_color(th.roles[r].bg);
		}
		if (!memchr(th.name, '\0', sizeof(th.name)) || !memchr(th.description, '\0', sizeof(th.description)))
			abort();
	} else {
		theme_builtin(&builtin);
		if (memcmp(&th, &builtin, sizeof(th)) != 0)
			abort();
	}
	free(text);
	return 0;
}
