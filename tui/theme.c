/*
 * theme.c - colour roles and theme files (no curses here; draw.c applies a theme).
 */
#include "theme.h"

#include <ctype.h>
#include <dirent.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../core/util.h"

#ifndef KBX_SRCDIR
#define KBX_SRCDIR "."
#endif
#ifndef KBX_DATADIR
#define KBX_DATADIR "/usr/local/share/kbx"
#endif

/* Debian's inih cuts lines at this length; a longer line is reported, not half read. */
#define THEME_MAX_LINE 199

static const char *const role_names[] = {
#define ROLE_NAME(id, name, fg, bg, at, mono, what) name,
	ROLE_LIST(ROLE_NAME)
#undef ROLE_NAME
};

static const char *const role_whats[] = {
#define ROLE_WHAT(id, name, fg, bg, at, mono, what) what,
	ROLE_LIST(ROLE_WHAT)
#undef ROLE_WHAT
};

static const unsigned role_monos[] = {
#define ROLE_MONO(id, name, fg, bg, at, mono, what) (mono),
	ROLE_LIST(ROLE_MONO)
#undef ROLE_MONO
};

const char *role_name(int role)
{
	return role >= 0 && role < ROLE_COUNT ? role_names[role] : "?";
}

const char *role_description(int role)
{
	return role >= 0 && role < ROLE_COUNT ? role_whats[role] : "?";
}

int role_parse(const char *name)
{
	for (int i = 0; i < ROLE_COUNT; i++)
		if (!strcmp(name, role_names[i]))
			return i;
	return -1;
}

unsigned role_mono_attrs(int role)
{
	return role >= 0 && role < ROLE_COUNT ? role_monos[role] : 0;
}

void theme_builtin(struct theme *th)
{
	static const struct role_style styles[] = {
#define ROLE_STYLE(id, name, fg, bg, at, mono, what) { (fg), (bg), (at) },
		ROLE_LIST(ROLE_STYLE)
#undef ROLE_STYLE
	};

	memset(th, 0, sizeof(*th));
	snprintf(th->name, sizeof(th->name), "default");
	snprintf(th->description, sizeof(th->description), "built-in dark theme");
	th->color = 1;
	memcpy(th->roles, styles, sizeof(styles));
}

/* ---- words ------------------------------------------------------------------------------ */

static const char *const color_words[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The xterm-256 cube levels. */
static const int cube[6] = { 0, 95, 135, 175, 215, 255 };

static int nearest_level(int v)
{
	int best = 0;

	for (int i = 1; i < 6; i++)
		if (abs(cube[i] - v) < abs(cube[best] - v))
			best = i;
	return best;
}

/* RGB of a palette entry (xterm's defaults). */
static void palette_rgb(int c, int rgb[3])
{
	static const int ansi[16][3] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 }, { 0, 0, 238 }, { 205, 0, 205 },
		{ 0, 205, 205 }, { 229, 229, 229 }, { 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 },
		{ 255, 255, 0 }, { 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
	};

	if (c < 16) {
		memcpy(rgb, ansi[c], sizeof(ansi[c]));
	} else if (c < 232) {
		c -= 16;
		rgb[0] = cube[c / 36];
		rgb[1] = cube[(c / 6) % 6];
		rgb[2] = cube[c % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
	}
}

static int rgb_to_256(int r, int g, int b)
{
	int c = 16 + 36 * nearest_level(r) + 6 * nearest_level(g) + nearest_level(b);
	int gray = (r + g + b) / 3, gi = gray < 8 ? 0 : gray > 238 ? 23 : (gray - 8) / 10;
	int crgb[3], grgb[3];
	long dc, dg;

	palette_rgb(c, crgb);
	palette_rgb(232 + gi, grgb);
	dc = (long)(crgb[0] - r) * (crgb[0] - r) + (long)(crgb[1] - g) * (crgb[1] - g) + (long)(crgb[2] - b) * (crgb[2] - b);
	dg = (long)(grgb[0] - r) * (grgb[0] - r) + (long)(grgb[1] - g) * (grgb[1] - g) + (long)(grgb[2] - b) * (grgb[2] - b);
	return dg < dc ? 232 + gi : c;
}

int theme_color_parse(const char *w)
{
	char *end;
	long v;

	if (!strcasecmp(w, "default") || !strcasecmp(w, "none"))
		return C_DEFAULT;
	if (!strcasecmp(w, "gray") || !strcasecmp(w, "grey") || !strcasecmp(w, "brightblack"))
		return C_GRAY;
	for (int i = 0; i < 8; i++) {
		if (!strcasecmp(w, color_words[i]))
			return i;
		if (!strncasecmp(w, "bright", 6) && !strcasecmp(w + 6, color_words[i]))
			return 8 + i;
	}
	if (w[0] == '#') {
		int rgb[3];

		if (strlen(w) != 7)
			return -2;
		for (int i = 0; i < 3; i++) {
			int hi = hexval((unsigned char)w[1 + 2 * i]), lo = hexval((unsigned char)w[2 + 2 * i]);

			if (hi < 0 || lo < 0)
				return -2;
			rgb[i] = hi * 16 + lo;
		}
		return rgb_to_256(rgb[0], rgb[1], rgb[2]);
	}
	if (!strncasecmp(w, "color", 5))
		w += 5;
	if (!isdigit((unsigned char)w[0]))
		return -2;
	v = strtol(w, &end, 10);
	if (*end || v < 0 || v > 255)
		return -2;
	return (int)v;
}

unsigned theme_attr_parse(const char *w, int *ok)
{
	static const struct {
		const char *name;
		unsigned bit;
	} attrs[] = {
		{ "bold", TA_BOLD }, { "dim", TA_DIM }, { "underline", TA_UNDERLINE }, { "reverse", TA_REVERSE },
		{ "italic", TA_ITALIC }, { "standout", TA_STANDOUT }, { "normal", 0 },
	};

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		if (!strcasecmp(w, attrs[i].name)) {
			*ok = 1;
			return attrs[i].bit;
		}
	}
	*ok = 0;
	return 0;
}

int theme_color_fallback(int color, int ncolors, int is_fg, unsigned *attrs)
{
	int rgb[3], best = 0;
	long bestd = -1;

	if (color < 0 || color < ncolors)
		return color;
	if (color >= 16) {
		/* nearest of the 16 (or 8) basic colours */
		int lim = ncolors >= 16 ? 16 : 8;

		palette_rgb(color, rgb);
		for (int i = 0; i < lim; i++) {
			int p[3];
			long d;

			palette_rgb(i, p);
			d = (long)(p[0] - rgb[0]) * (p[0] - rgb[0]) + (long)(p[1] - rgb[1]) * (p[1] - rgb[1]) +
			    (long)(p[2] - rgb[2]) * (p[2] - rgb[2]);
			if (bestd < 0 || d < bestd) {
				bestd = d;
				best = i;
			}
		}
		color = best;
		if (color < ncolors)
			return color;
	}
	/* 8..15 on an 8-colour terminal: the plain colour, bold for text */
	if (is_fg && attrs)
		*attrs |= TA_BOLD;
	return color - 8 < ncolors ? color - 8 : C_DEFAULT;
}

/* ---- files ------------------------------------------------------------------------------ */

struct parse_ctx {
	struct theme *th;
	const char *path;
	char err[256];          /* the first error (inih reports its line) */
	int have_err;
};

static void set_err(struct parse_ctx *p, const char *fmt, const char *a, const char *b)
{
	if (p->have_err)
		return;
	snprintf(p->err, sizeof(p->err), fmt, a, b);
	p->have_err = 1;
}

static int yes_no(const char *v, int *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = 1;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = 0;
	else
		return 0;
	return 1;
}

/* "fg [bg] [attrs...]" */
static int parse_style(struct parse_ctx *p, const char *key, const char *value, struct role_style *st)
{
	char buf[256], *save = NULL, *w;
	int ncolors = 0;
	struct role_style s = { C_DEFAULT, C_DEFAULT, 0 };

	snprintf(buf, sizeof(buf), "%s", value);
	for (w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int ok, c = theme_color_parse(w);
		unsigned a;

		if (c != -2) {
			if (ncolors == 2) {
				set_err(p, "a third colour '%s' for role '%s'", w, key);
				return 0;
			}
			if (ncolors++ == 0)
				s.fg = (short)c;
			else
				s.bg = (short)c;
			continue;
		}
		a = theme_attr_parse(w, &ok);
		if (!ok) {
			set_err(p, "unknown colour or attribute '%s' for role '%s'", w, key);
			return 0;
		}
		s.attrs |= a;
	}
	if (!ncolors && !s.attrs && !strstr(value, "normal")) {
		set_err(p, "no colour or attribute for role '%s'%s", key, "");
		return 0;
	}
	*st = s;
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *p = user;

	if (!name) /* inih's section-start callback, when compiled in */
		return 1;
	if (!strcasecmp(section, "theme")) {
		if (!strcmp(name, "description")) {
			snprintf(p->th->description, sizeof(p->th->description), "%s", value);
		} else if (!strcmp(name, "color") || !strcmp(name, "colour")) {
			if (!yes_no(value, &p->th->color)) {
				set_err(p, "'%s' for '%s' is not yes or no", value, name);
				return 0;
			}
		} else if (!strcmp(name, "name")) {
			snprintf(p->th->name, sizeof(p->th->name), "%s", value);
		} else {
			set_err(p, "unknown key '%s' in section '%s'", name, section);
			return 0;
		}
		return 1;
	}
	if (!strcasecmp(section, "colors") || !strcasecmp(section, "colours")) {
		int r = role_parse(name);

		if (r < 0) {
			set_err(p, "unknown colour role '%s'%s", name, "");
			return 0;
		}
		p->th->set[r] = 1;
		return parse_style(p, name, value, &p->th->roles[r]);
	}
	set_err(p, "unknown section '%s'%s", section, "");
	return 0;
}

enum kbx_status theme_parse(const char *text, const char *path, struct theme *out)
{
	struct parse_ctx p = { 0 };
	const char *line = text;
	char name[64] = "";
	int lineno = 1, rc;

	/* The name comes from the file: "themes/light.theme" -> "light". */
	if (path) {
		const char *base = strrchr(path, '/');
		size_t n;

		base = base ? base + 1 : path;
		n = strcspn(base, ".");
		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), base);
	}
	/* Too-long lines first: inih would silently read them in two halves. */
	while (*line) {
		size_t n = strcspn(line, "\n");

		if (n > THEME_MAX_LINE) {
			theme_builtin(out);
			return kbx_error(KBX_EPARSE, "line too long (%zu characters, at most %d) in '%s' line %d", n,
					 THEME_MAX_LINE, path ? path : "theme", lineno);
		}
		line += n;
		if (*line)
			line++;
		lineno++;
	}
	theme_builtin(out);
	if (*name)
		snprintf(out->name, sizeof(out->name), "%s", name);
	out->description[0] = '\0';
	p.th = out;
	p.path = path;
	rc = ini_parse_string(text, handler, &p);
	if (rc != 0) {
		char msg[sizeof(p.err)];

		snprintf(msg, sizeof(msg), "%s", p.have_err ? p.err : "not an INI line");
		theme_builtin(out);
		return kbx_error(KBX_EPARSE, "%s in '%s' line %d", msg, path ? path : "theme", rc);
	}
	return KBX_OK;
}

enum kbx_status theme_load(const char *path, struct theme *out)
{
	char *text;
	size_t len;
	enum kbx_status st;

	if (read_file(path, &text, &len) != KBX_OK) {
		theme_builtin(out);
		return kbx_wrap(KBX_EIO, "cannot read theme '%s': ", path);
	}
	if (memchr(text, '\0', len)) {
		free(text);
		theme_builtin(out);
		return kbx_error(KBX_EPARSE, "binary data in theme '%s'", path);
	}
	st = theme_parse(text, path, out);
	free(text);
	return st;
}

static int is_dir(const char *p)
{
	struct stat sb;

	return p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

char *theme_dir(const char *tasks_root)
{
	const char *env = getenv("KBX_THEMES");
	char *d;

	if (env && *env)
		return xstrdup(env);
	if (tasks_root) {
		const char *slash = NULL;
		size_t n = strlen(tasks_root);

		/* "<top>/tasks" or "<top>/tasks/" -> "<top>/themes" */
		while (n > 1 && tasks_root[n - 1] == '/')
			n--;
		for (size_t i = 0; i < n; i++)
			if (tasks_root[i] == '/')
				slash = tasks_root + i;
		d = slash ? xasprintf("%.*s/themes", (int)(slash - tasks_root), tasks_root) : xstrdup("themes");
		if (is_dir(d))
			return d;
		free(d);
	}
	if (is_dir(KBX_SRCDIR "/themes"))
		return xstrdup(KBX_SRCDIR "/themes");
	return xstrdup(KBX_DATADIR "/themes");
}

static int cmp_names(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	int dx = !strcmp(x, "default"), dy = !strcmp(y, "default");

	/* "default" first, then alphabetical */
	if (dx || dy)
		return dy - dx;
	return strcmp(x, y);
}

int theme_list(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;
	int n = 0;

	*names = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 6 && !strcmp(e->d_name + len - 6, ".theme") && e->d_name[0] != '.') {
			XGROW(v, n + 1, cap);
			v[n++] = xstrndup(e->d_name, len - 6);
		}
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_names);
	*names = v;
	return n;
}

/* ---- the chosen theme, kept between starts ------------------------------------------------ */

static char *config_dir(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (x && *x == '/')
		return xasprintf("%s/kbx", x);
	if (home && *home)
		return xasprintf("%s/.config/kbx", home);
	return NULL;
}

char *theme_saved(void)
{
	char *dir = config_dir(), *path, *text = NULL;
	size_t len;

	if (!dir)
		return NULL;
	path = xasprintf("%s/theme", dir);
	free(dir);
	if (read_file(path, &text, &len) != KBX_OK)
		text = NULL;
	free(path);
	if (text && !*str_trim(text)) {
		free(text);
		text = NULL;
	}
	return text;
}

enum kbx_status theme_save(const char *name)
{
	char *dir = config_dir(), *path, *line;
	enum kbx_status st;

	if (!dir)
		return kbx_error(KBX_EINVAL, "cannot save the theme: neither XDG_CONFIG_HOME nor HOME is set");
	st = make_dirs(dir, 0755);
	if (st == KBX_OK) {
		path = xasprintf("%s/theme", dir);
		line = xasprintf("%s\n", name);
		st = write_file(path, line, strlen(line));
		free(line);
		free(path);
	}
	free(dir);
	return st;
}
