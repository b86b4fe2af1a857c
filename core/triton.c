#include "triton.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "expr.h"
#include "jsonget.h"
#include "util.h"

/*
 * Where each piece of a cache entry comes from (Triton's own sources, read in the wheels of
 * 3.0.0 to 3.9.0):
 *
 *   - the metadata JSON is the compiler's `metadata` dict: "name", "num_warps" (already
 *     multiplied by warp groups), "shared" (triton/backends/nvidia/compiler.py make_llir and
 *     make_cubin); "global_scratch_size"/"_align" from 3.3 on, "profile_scratch_size"/"_align"
 *     from 3.5 on (same file); "launch_cooperative_grid" from 3.3 on.
 *   - the launcher (triton/backends/nvidia/driver.py make_launcher; driver.c from 3.7 on)
 *     launches 32 * num_warps threads with "shared" bytes of dynamic shared memory and passes
 *     the non-constexpr arguments in order, then `&global_scratch` (3.3+) and
 *     `&profile_scratch` (3.5+), each null when its size is 0, else
 *     grid x * y * z * num_ctas * size bytes.
 *   - the signature is not in the metadata: the IR's `tt.func @name(%x: !tt.ptr<f32> {...},
 *     %n: i32 ...)` lists exactly the visible parameters in order.
 */

/* ------------------------------------------------------------------ files ---- */

/* ---------------------------------------------------------------- metadata ---- */

static enum kbx_status need_int(json_t *o, const char *path, const char *key, long long lo, long long *out)
{
	enum jsonget_found f = jsonget_int(o, key, out);

	if (f != JSONGET_FOUND || *out < lo)
		return kbx_error(KBX_EPARSE, "'%s': \"%s\" must be an integer of at least %lld%s", path, key, lo,
				 f == JSONGET_ABSENT || f == JSONGET_NULL ? " (it is missing)" : "");
	return KBX_OK;
}

enum kbx_status triton_parse_metadata(const char *text, const char *path, struct triton_kernel *k)
{
	json_error_t err;
	json_t *o = json_loads(text, 0, &err), *v;
	long long n;
	enum kbx_status st = KBX_OK;
	size_t i;
	enum jsonget_found found;
	const char *name;

	if (!o)
		return kbx_error(KBX_EPARSE, "'%s' line %d column %d: %s", path, err.line, err.column, err.text);
	if (!json_is_object(o)) {
		st = kbx_error(KBX_EPARSE, "'%s': expected a JSON object (Triton's kernel metadata)", path);
		goto out;
	}
	name = jsonget_str_or(o, "name", NULL);
	if (!name || !*name) {
		st = kbx_error(KBX_EPARSE, "'%s': \"name\" (the kernel's name) is missing or not a string", path);
		goto out;
	}
	free(k->name);
	k->name = xstrdup(name);
	free(k->version);
	k->version = jsonget_strdup(o, "triton_version");
	if ((st = need_int(o, path, "num_warps", 1, &n)))
		goto out;
	if (n > 32) {
		st = kbx_error(KBX_EINVAL, "'%s': \"num_warps\" is %lld: more than 1024 threads per block", path, n);
		goto out;
	}
	k->num_warps = (int)n;
	if ((st = need_int(o, path, "shared", 0, &n)))
		goto out;
	if (n > 0x7fffffffLL) {
		st = kbx_error(KBX_EINVAL, "'%s': \"shared\" is %lld bytes", path, n);
		goto out;
	}
	k->shared = (int)n;

	/* A cluster of CTAs per program needs cuLaunchKernelEx with cluster dimensions. */
	k->num_ctas = 1;
	found = jsonget_int(o, "num_ctas", &n);
	if (found == JSONGET_WRONG || (found == JSONGET_FOUND && n != 1)) {
		st = kbx_error(KBX_EINVAL, "'%s': \"num_ctas\" is not 1: the kernel needs a cluster launch, which kbx does not do",
			       path);
		goto out;
	}
	v = json_object_get(o, "cluster_dims");
	for (i = 0; json_is_array(v) && i < json_array_size(v); i++) {
		json_t *d = json_array_get(v, i);

		if (!json_is_integer(d) || json_integer_value(d) != 1) {
			st = kbx_error(KBX_EINVAL, "'%s': \"cluster_dims\" is not [1, 1, 1]: the kernel needs a cluster launch, "
				       "which kbx does not do", path);
			goto out;
		}
	}
	v = json_object_get(o, "target");
	if (json_is_object(v)) {
		const char *b = jsonget_str_or(v, "backend", NULL);

		if (b && strcmp(b, "cuda")) {
			st = kbx_error(KBX_EINVAL, "'%s': the kernel was compiled for backend '%s'; kbx runs CUDA kernels", path,
				       b);
			goto out;
		}
		if (jsonget_int(v, "arch", &n) == JSONGET_FOUND && n > 0 && n < 10000)
			k->arch = (int)n;
		if (jsonget_int(v, "warp_size", &n) == JSONGET_FOUND && n != 32) {
			st = kbx_error(KBX_EINVAL, "'%s': warp size %lld; kbx runs CUDA kernels (warp size 32)", path, n);
			goto out;
		}
	}
	k->cooperative = jsonget_bool_or(o, "launch_cooperative_grid", 0);
	v = json_object_get(o, "tensordesc_meta");
	if (json_is_array(v) && json_array_size(v)) {
		st = kbx_error(KBX_EINVAL, "'%s': the kernel takes tensor descriptors (\"tensordesc_meta\"), which kbx cannot "
			       "pass", path);
		goto out;
	}

	/* Hidden parameters: each scratch pointer the metadata describes is one. */
	k->meta_hidden = 0;
	k->global_scratch_size = k->profile_scratch_size = 0;
	k->global_scratch_align = k->profile_scratch_align = 1;
	if (json_object_get(o, "global_scratch_size")) {
		if ((st = need_int(o, path, "global_scratch_size", 0, &k->global_scratch_size)))
			goto out;
		k->meta_hidden = 1;
		if (jsonget_int(o, "global_scratch_align", &n) == JSONGET_FOUND && n > 0)
			k->global_scratch_align = n;
	}
	if (json_object_get(o, "profile_scratch_size")) {
		if ((st = need_int(o, path, "profile_scratch_size", 0, &k->profile_scratch_size)))
			goto out;
		if (!k->meta_hidden) {
			st = kbx_error(KBX_EPARSE, "'%s': \"profile_scratch_size\" without \"global_scratch_size\"", path);
			goto out;
		}
		k->meta_hidden = 2;
		if (jsonget_int(o, "profile_scratch_align", &n) == JSONGET_FOUND && n > 0)
			k->profile_scratch_align = n;
	}
out:
	json_decref(o);
	return st;
}

/* --------------------------------------------------------------- signature ---- */

void triton_params_free(struct triton_param *p, int n)
{
	int i;

	for (i = 0; p && i < n; i++) {
		free(p[i].name);
		free(p[i].type);
	}
	free(p);
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || !is_ident_start((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/*
 * The end of one item of a bracketed list starting at p: the first ',' or `close` outside
 * (), [], {}, <> and "strings". NULL when the text ends first.
 */
static const char *item_end(const char *p, char close)
{
	int paren = 0, brace = 0, square = 0, angle = 0;

	for (; *p; p++) {
		char c = *p;

		if (c == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return NULL;
			continue;
		}
		if (!paren && !brace && !square && !angle && (c == ',' || c == close))
			return p;
		switch (c) {
		case '(': paren++; break;
		case ')': if (paren) paren--; break;
		case '{': brace++; break;
		case '}': if (brace) brace--; break;
		case '[': square++; break;
		case ']': if (square) square--; break;
		case '<': angle++; break;
		case '>': if (angle) angle--; break;
		default: break;
		}
	}
	return NULL;
}

/* One `%name: type {attrs} loc(...)` in [s, e). */
static enum kbx_status parse_param(const char *s, const char *e, const char *path, const char *kname, int index,
				   struct triton_param *p)
{
	const char *q, *t0, *loc;
	char *rest;
	int angle = 0;

	memset(p, 0, sizeof(*p));
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s == e || *s != '%')
		return kbx_error(KBX_EPARSE, "'%s': parameter %d of '%s': expected '%%name: type'", path, index + 1, kname);
	for (q = s + 1; q < e && *q != ':' && !isspace((unsigned char)*q); q++)
		;
	if (!(q - s - 1 >= 3 && !strncmp(s + 1, "arg", 3) && strspn(s + 4, "0123456789") == (size_t)(q - s - 4)) &&
	    is_ident(s + 1, (size_t)(q - s - 1)))
		p->name = xstrndup(s + 1, (size_t)(q - s - 1));
	while (q < e && isspace((unsigned char)*q))
		q++;
	if (q >= e || *q != ':')
		return kbx_error(KBX_EPARSE, "'%s': parameter %d of '%s': expected ':' and a type", path, index + 1, kname);
	for (q++; q < e && isspace((unsigned char)*q); q++)
		;
	for (t0 = q; q < e; q++) {
		if (*q == '<')
			angle++;
		else if (*q == '>' && angle)
			angle--;
		else if (!angle && (isspace((unsigned char)*q) || *q == '{'))
			break;
	}
	if (q == t0)
		return kbx_error(KBX_EPARSE, "'%s': parameter %d of '%s' has no type", path, index + 1, kname);
	p->type = xstrndup(t0, (size_t)(q - t0));
	rest = xstrndup(q, (size_t)(e - q));
	if (str_starts_with(p->type, "!tt.ptr<")) {
		size_t n = strcspn(p->type + 8, ",>");

		p->is_ptr = 1;
		snprintf(p->elem, sizeof(p->elem), "%.*s", (int)(n < sizeof(p->elem) ? n : sizeof(p->elem) - 1), p->type + 8);
		str_trim(p->elem);
	} else if (str_starts_with(p->type, "!tt.tensordesc") || str_starts_with(p->type, "tensor<")) {
		free(rest);
		return kbx_error(KBX_EINVAL, "'%s': parameter %d of '%s' is a tensor descriptor (%s), which kbx cannot pass",
				 path, index + 1, kname, p->type);
	} else {
		snprintf(p->elem, sizeof(p->elem), "%s", p->type);
	}
	q = strstr(rest, "tt.divisibility");
	if (q) {
		q += strlen("tt.divisibility");
		while (*q == ' ' || *q == '=')
			q++;
		p->divisibility = atoi(q) > 0 ? atoi(q) : 0;
	}
	/* With %argN the name is in the location, when Triton wrote one: loc("x_ptr") or
	 * loc("x_ptr"(#loc)); a file location loc("/path.py":8:0) is no name. */
	loc = strstr(rest, "loc(\"");
	if (!p->name && loc) {
		const char *n0 = loc + 5, *n1 = strchr(n0, '"');

		if (n1 && is_ident(n0, (size_t)(n1 - n0)))
			p->name = xstrndup(n0, (size_t)(n1 - n0));
	}
	free(rest);
	return KBX_OK;
}

#define TRITON_MAX_PARAMS 64

enum kbx_status triton_parse_signature(const char *ir, const char *path, const char *name,
				       struct triton_param **params, int *nparams)
{
	struct triton_param *ps = NULL;
	const char *p = ir, *list = NULL;
	size_t nlen = strlen(name);
	int n = 0;
	enum kbx_status st;

	*params = NULL;
	*nparams = 0;
	while ((p = strstr(p, "tt.func")) != NULL) {
		p += 7;
		while (*p == ' ' || *p == '\t')
			p++;
		while (str_starts_with(p, "public ") || str_starts_with(p, "private ") || str_starts_with(p, "nested ")) {
			p = strchr(p, ' ');
			while (*p == ' ')
				p++;
		}
		if (*p != '@')
			continue;
		p++;
		if (*p == '"' && !strncmp(p + 1, name, nlen) && p[1 + nlen] == '"')
			p += nlen + 2;
		else if (!strncmp(p, name, nlen) && !isalnum((unsigned char)p[nlen]) && p[nlen] != '_')
			p += nlen;
		else
			continue;
		while (*p == ' ')
			p++;
		if (*p == '(') {
			list = p + 1;
			break;
		}
	}
	if (!list)
		return kbx_error(KBX_EPARSE, "'%s': no 'tt.func @%s(...)': the kernel's signature is not there", path, name);
	p = list;
	while (*p == ' ' || *p == '\n' || *p == '\t')
		p++;
	if (*p == ')')
		return KBX_OK;
	ps = xcalloc(TRITON_MAX_PARAMS, sizeof(*ps));
	for (;;) {
		const char *e = item_end(p, ')');

		if (!e) {
			st = kbx_error(KBX_EPARSE, "'%s': the parameter list of '%s' does not end", path, name);
			goto fail;
		}
		if (n == TRITON_MAX_PARAMS) {
			st = kbx_error(KBX_EINVAL, "'%s': '%s' has more than %d parameters", path, name, TRITON_MAX_PARAMS);
			goto fail;
		}
		st = parse_param(p, e, path, name, n, &ps[n]);
		n++;
		if (st)
			goto fail;
		if (*e == ')')
			break;
		p = e + 1;
	}
	*params = ps;
	*nparams = n;
	return KBX_OK;
fail:
	triton_params_free(ps, n);
	return st;
}

/* ------------------------------------------------------------------ binary ---- */

#define MAX_ORDINAL 256

/* A cubin's parameter sizes (cubin.h); -1 when the image cannot be read that way. */
static int elf_params(const unsigned char *b, size_t n, const char *name, size_t **sizes)
{
	size_t tmp[MAX_ORDINAL];
	int count = 0;

	if (cubin_kernel_params(b, n, name, tmp, MAX_ORDINAL, &count) != KBX_OK || count > MAX_ORDINAL)
		return -1;
	*sizes = xcalloc((size_t)count + 1, sizeof(**sizes));
	memcpy(*sizes, tmp, (size_t)count * sizeof(tmp[0]));
	return count;
}

static size_t ptx_type_size(const char *t, size_t n)
{
	static const struct {
		const char *name;
		size_t size;
	} types[] = {
		{ ".u8", 1 }, { ".s8", 1 }, { ".b8", 1 }, { ".u16", 2 }, { ".s16", 2 }, { ".b16", 2 }, { ".f16", 2 },
		{ ".u32", 4 }, { ".s32", 4 }, { ".b32", 4 }, { ".f32", 4 }, { ".u64", 8 }, { ".s64", 8 }, { ".b64", 8 },
		{ ".f64", 8 },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == n && !strncmp(t, types[i].name, n))
			return types[i].size;
	return 0;
}

/* `.visible .entry NAME(.param .u64 .ptr .global .align 1 NAME_param_0, ...)` */
static int ptx_params(const char *ptx, size_t n, const char *name, size_t **sizes)
{
	const char *p = ptx, *end = ptx + n, *close;
	size_t nlen = strlen(name), tmp[TRITON_MAX_PARAMS];
	int count = 0;

	for (;;) {
		p = memmem(p, (size_t)(end - p), ".entry", 6);
		if (!p)
			return -1;
		p += 6;
		while (p < end && isspace((unsigned char)*p))
			p++;
		if ((size_t)(end - p) > nlen && !strncmp(p, name, nlen) &&
		    (isspace((unsigned char)p[nlen]) || p[nlen] == '('))
			break;
	}
	p += nlen;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p != '(')
		return -1;
	close = memchr(p, ')', (size_t)(end - p));
	if (!close)
		return -1;
	for (p++; p < close;) {
		const char *e = memchr(p, ',', (size_t)(close - p));
		const char *q, *type = NULL, *br;
		size_t tlen = 0, size;

		if (!e)
			e = close;
		q = memmem(p, (size_t)(e - p), ".param", 6);
		if (!q) {
			while (p < e && isspace((unsigned char)*p))
				p++;
			if (p == e && e == close && count == 0)
				break;  /* () */
			return -1;
		}
		for (q += 6; q < e;) {
			const char *w;

			while (q < e && isspace((unsigned char)*q))
				q++;
			for (w = q; q < e && !isspace((unsigned char)*q) && *q != '['; q++)
				;
			if (q == w)
				break;
			if ((size_t)(q - w) == 6 && !strncmp(w, ".align", 6)) {
				while (q < e && isspace((unsigned char)*q))
					q++;
				while (q < e && isdigit((unsigned char)*q))
					q++;
				continue;
			}
			if (ptx_type_size(w, (size_t)(q - w)) && !type) {
				type = w;
				tlen = (size_t)(q - w);
			}
		}
		if (!type || count == TRITON_MAX_PARAMS)
			return -1;
		size = ptx_type_size(type, tlen);
		br = memchr(type, '[', (size_t)(e - type));
		if (br) {
			long m = strtol(br + 1, NULL, 10);

			if (m <= 0 || m > 4096)
				return -1;
			size *= (size_t)m;
		}
		tmp[count++] = size;
		p = e + 1;
	}
	*sizes = xcalloc((size_t)count + 1, sizeof(**sizes));
	memcpy(*sizes, tmp, (size_t)count * sizeof(tmp[0]));
	return count;
}

int triton_binary_params(const void *image, size_t size, int is_ptx, const char *name, size_t **sizes)
{
	*sizes = NULL;
	if (!image || !name)
		return -1;
	return is_ptx ? ptx_params(image, size, name, sizes) : elf_params(image, size, name, sizes);
}

/* -------------------------------------------------------------------- load ---- */

void triton_kernel_free(struct triton_kernel *k)
{
	if (!k)
		return;
	free(k->dir);
	free(k->name);
	free(k->version);
	triton_params_free(k->params, k->nparams);
	free(k->declared_sizes);
	free(k->image);
	free(k->image_path);
	free(k->ir_path);
	free(k->meta_path);
	free(k->launch);
	memset(k, 0, sizeof(*k));
}

/* A line of kbx-launch.txt may be written as in a CUDA source: `// @kbx launch ...`. */
static const char *skip_directive(const char *s)
{
	const char *p = s;

	if (strncmp(p, "//", 2))
		return s;
	for (p += 2; *p == ' ' || *p == '\t'; p++)
		;
	if (strncmp(p, "@kbx", 4))
		return s;
	for (p += 4; *p == ' ' || *p == '\t'; p++)
		;
	if (strncmp(p, "launch", 6) || (p[6] != ' ' && p[6] != '\t'))
		return s;
	for (p += 6; *p == ' ' || *p == '\t'; p++)
		;
	return p;
}

static enum kbx_status read_launch_file(const char *path, struct triton_kernel *k)
{
	char *text, *line, *save = NULL;
	size_t len;
	int lineno = 0;
	enum kbx_status st = read_file(path, &text, &len);

	if (st)
		return st;
	if (strlen(text) != len) {
		free(text);
		return kbx_error(KBX_EPARSE, "'%s': not a text file", path);
	}
	/* strtok_r would merge empty lines and lose the line numbers. */
	for (line = text; line; line = save) {
		char *nl = strchr(line, '\n');

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		str_trim(line);
		if (!*line || *line == '#')
			continue;
		if (k->launch) {
			st = kbx_error(KBX_EPARSE, "'%s' line %d: a second launch line (the first is on line %d; a Triton "
				       "cache entry holds one kernel)", path, lineno, k->launch_line);
			break;
		}
		k->launch = xstrdup(skip_directive(line));
		k->launch_line = lineno;
	}
	free(text);
	if (!st && !k->launch)
		st = kbx_error(KBX_EPARSE, "'%s': no launch line (expected KERNEL<<<GRID>>>(ARGS))", path);
	return st;
}

/* The one `<name>.json` of a cache entry that is not a `__grp__*.json` group file. */
static enum kbx_status find_metadata(const char *dir, char **base)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct sbuf names = SBUF_INIT;
	int n = 0;

	*base = NULL;
	if (!d)
		return kbx_error(errno == ENOENT ? KBX_ENOTFOUND : KBX_EIO, "cannot open Triton cache entry '%s': %s", dir,
				 strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len <= 5 || strcmp(e->d_name + len - 5, ".json") || str_starts_with(e->d_name, "__grp__"))
			continue;
		sbuf_addf(&names, "%s'%s'", n ? ", " : "", e->d_name);
		if (!n)
			*base = xstrndup(e->d_name, len - 5);
		n++;
	}
	closedir(d);
	if (n == 1) {
		sbuf_release(&names);
		return KBX_OK;
	}
	free(*base);
	*base = NULL;
	if (!n) {
		sbuf_release(&names);
		return kbx_error(KBX_ENOTFOUND, "'%s' holds no kernel metadata (<kernel>.json): --triton takes one folder of "
				 "Triton's cache, ~/.triton/cache/<hash>/", dir);
	}
	{
		enum kbx_status st = kbx_error(KBX_EINVAL, "'%s' holds the metadata of %d kernels (%s): --triton takes one "
					       "cache entry, which holds one", dir, n, names.buf);

		sbuf_release(&names);
		return st;
	}
}

enum kbx_status triton_load(const char *dir, struct triton_kernel *out)
{
	struct triton_kernel k;
	char *base = NULL, *text = NULL, *path;
	size_t len;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	memset(&k, 0, sizeof(k));
	k.declared = -1;
	k.dir = xstrdup(dir);
	st = find_metadata(dir, &base);
	if (st)
		goto fail;
	k.meta_path = xasprintf("%s/%s.json", dir, base);
	st = read_file(k.meta_path, &text, &len);
	if (!st)
		st = triton_parse_metadata(text, k.meta_path, &k);
	free(text);
	text = NULL;
	if (st)
		goto fail;

	/* The cubin when there is one; PTX is JIT-compiled by the driver. */
	k.image_path = xasprintf("%s/%s.cubin", dir, base);
	if (!path_is_file(k.image_path)) {
		free(k.image_path);
		k.image_path = xasprintf("%s/%s.ptx", dir, base);
		k.image_is_ptx = 1;
		if (!path_is_file(k.image_path)) {
			st = kbx_error(KBX_ENOTFOUND, "'%s' has neither '%s.cubin' nor '%s.ptx'", dir, base, base);
			goto fail;
		}
	}
	st = read_file(k.image_path, &text, &len);
	if (st)
		goto fail;
	k.image = (unsigned char *)text;
	k.image_size = k.image_is_ptx ? len + 1 : len;
	text = NULL;
	if (!k.image_is_ptx && (len < 4 || memcmp(k.image, "\177ELF", 4))) {
		st = kbx_error(KBX_EINVAL, "'%s' is not a cubin (no ELF header)", k.image_path);
		goto fail;
	}

	k.ir_path = xasprintf("%s/%s.ttir", dir, base);
	if (!path_is_file(k.ir_path)) {
		path = xasprintf("%s/%s.source", dir, base);
		if (path_is_file(path)) {
			free(k.ir_path);
			k.ir_path = path;
		} else {
			free(path);
			st = kbx_error(KBX_ENOTFOUND, "'%s' has no '%s.ttir': kbx reads the kernel's parameters from its Triton IR",
				       dir, base);
			goto fail;
		}
	}
	st = read_file(k.ir_path, &text, &len);
	if (!st)
		st = triton_parse_signature(text, k.ir_path, k.name, &k.params, &k.nparams);
	free(text);
	text = NULL;
	if (st)
		goto fail;

	len = k.image_is_ptx ? k.image_size - 1 : k.image_size;
	k.declared = triton_binary_params(k.image, len, k.image_is_ptx, k.name, &k.declared_sizes);
	if (k.declared < 0 && !k.image_is_ptx) {
		/* A cubin whose .nv.info kbx cannot read: the PTX beside it declares the same. */
		path = xasprintf("%s/%s.ptx", dir, base);
		if (path_is_file(path) && read_file(path, &text, &len) == KBX_OK)
			k.declared = triton_binary_params(text, len, 1, k.name, &k.declared_sizes);
		free(text);
		text = NULL;
		free(path);
	}

	path = xasprintf("%s/%s", dir, TRITON_LAUNCH_FILE);
	if (path_is_file(path))
		st = read_launch_file(path, &k);
	free(path);
	if (st)
		goto fail;
	free(base);
	*out = k;
	return KBX_OK;
fail:
	free(base);
	triton_kernel_free(&k);
	return st;
}

/* ------------------------------------------------------------------ launch ---- */

/* Whether a pointer to Triton type `elem` may take a buffer of dtype dt. Triton's integer types
 * are signless, torch.bool tensors arrive as *i1, and kbx has no fp8 dtype (u8 holds the bytes). */
static int elem_fits(const char *elem, enum dtype dt)
{
	if (!strcmp(elem, "f32"))
		return dt == DT_F32 || dt == DT_C64;
	if (!strcmp(elem, "f64"))
		return dt == DT_F64;
	if (!strcmp(elem, "f16"))
		return dt == DT_F16;
	if (!strcmp(elem, "bf16"))
		return dt == DT_BF16;
	if (!strcmp(elem, "i8"))
		return dt == DT_I8 || dt == DT_U8 || dt == DT_BOOL;
	if (!strcmp(elem, "i1"))
		return dt == DT_BOOL || dt == DT_U8 || dt == DT_I8;
	if (!strcmp(elem, "i16"))
		return dt == DT_I16;
	if (!strcmp(elem, "i32"))
		return dt == DT_I32;
	if (!strcmp(elem, "i64"))
		return dt == DT_I64;
	if (str_starts_with(elem, "f8"))
		return dt == DT_U8 || dt == DT_I8;
	return 0;
}

/* The scalar types a launch argument can carry (i32, i64, f32, f64), as dtypes. */
static int scalar_dtype(const char *type, enum dtype *dt)
{
	if (!strcmp(type, "i32"))
		*dt = DT_I32;
	else if (!strcmp(type, "i64"))
		*dt = DT_I64;
	else if (!strcmp(type, "f32"))
		*dt = DT_F32;
	else if (!strcmp(type, "f64"))
		*dt = DT_F64;
	else
		return 0;
	return 1;
}

/* The size the binary should declare for a parameter of this IR type; 0 when unknown. */
static size_t param_bytes(const struct triton_param *p)
{
	if (p->is_ptr)
		return 8;
	if (!strcmp(p->elem, "i64") || !strcmp(p->elem, "f64"))
		return 8;
	if (!strcmp(p->elem, "i32") || !strcmp(p->elem, "f32"))
		return 4;
	if (!strcmp(p->elem, "i16") || !strcmp(p->elem, "f16") || !strcmp(p->elem, "bf16"))
		return 2;
	if (!strcmp(p->elem, "i8"))
		return 1;
	return 0;
}

/* "parameter 3 'n'": the IR's name, else the launch's. */
static void param_label(char *buf, size_t len, int i, const struct triton_param *p, const struct launch_arg *a)
{
	const char *n = p->name ? p->name : a && a->name ? a->name : NULL;

	if (n)
		snprintf(buf, len, "parameter %d '%s'", i + 1, n);
	else
		snprintf(buf, len, "parameter %d", i + 1);
}

/* Check argument i of the launch against visible parameter i; 0 when it fits, else -1 and why. */
static int check_arg(const struct task *t, int i, const struct triton_param *p, const struct launch_arg *a, char *why,
		     size_t whylen)
{
	const struct task_arg *ta = a->name ? task_find_arg(t, a->name) : NULL;
	enum dtype want;
	char label[160];

	param_label(label, sizeof(label), i, p, a);
	if (a->name && !ta) {
		snprintf(why, whylen, "argument %d '%s' is not an argument of task '%s'", i + 1, a->name, t->id);
		return -1;
	}
	if (p->is_ptr) {
		if (!ta || ta->dir == ARG_SCALAR) {
			if (ta)
				snprintf(why, whylen, "%s is a pointer (%s) in the Triton signature but '%s' is a scalar (%s)", label,
					 p->type, a->name, dtype_name(ta->dtype));
			else
				snprintf(why, whylen, "%s is a pointer (%s) in the Triton signature but the launch passes %s(%s)",
					 label, p->type, dtype_name(a->cast), a->expr);
			return -1;
		}
		if (!elem_fits(p->elem, ta->dtype)) {
			snprintf(why, whylen, "%s points to %s in the Triton signature but '%s' is %s", label, p->elem, a->name,
				 dtype_name(ta->dtype));
			return -1;
		}
		return 0;
	}
	if (ta && ta->dir != ARG_SCALAR) {
		snprintf(why, whylen, "%s is %s in the Triton signature but '%s' is a buffer", label, p->type, a->name);
		return -1;
	}
	if (!scalar_dtype(p->elem, &want)) {
		snprintf(why, whylen, "%s is %s in the Triton signature, a scalar type a launch line cannot pass (i32, "
			 "i64, f32 or f64)", label, p->type);
		return -1;
	}
	if (ta && ta->dtype != want) {
		snprintf(why, whylen, "%s is %s in the Triton signature but '%s' is %s; write %s(%s)", label, p->elem,
			 a->name, dtype_name(ta->dtype), p->elem, a->name);
		return -1;
	}
	if (!ta && a->cast != want) {
		snprintf(why, whylen, "%s is %s in the Triton signature but the launch passes %s(%s); write %s(%s)", label,
			 p->elem, dtype_name(a->cast), a->expr, p->elem, a->expr);
		return -1;
	}
	return 0;
}

/* Copy of expression e with the name `sms` replaced by its value. */
static char *subst_sms(const char *e, int sms)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = e;

	while (*p) {
		if (is_ident_start((unsigned char)*p)) {
			const char *q = p;

			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			if (q - p == 3 && !strncmp(p, "sms", 3))
				sbuf_addf(&sb, "%d", sms);
			else
				sbuf_add(&sb, p, (size_t)(q - p));
			p = q;
		} else if (isdigit((unsigned char)*p)) {
			/* a number such as 1e5: keep it whole */
			const char *q = p;

			while (isalnum((unsigned char)*q) || *q == '.')
				q++;
			sbuf_add(&sb, p, (size_t)(q - p));
			p = q;
		} else {
			sbuf_add(&sb, p++, 1);
		}
	}
	return sbuf_detach(&sb);
}

/* A constant integer expression (block, shared memory); 0 when it is not one. */
static int const_int(const char *e, long long *v)
{
	struct expr_env env = { 0 };
	int col, ok = expr_eval_int(e, &env, v, &col) == KBX_OK;

	expr_env_free(&env);
	if (!ok)
		kbx_clear_error();
	return ok;
}

/*
 * The launch line as launch.c reads it: `// @kbx launch ` before it and, when the block or the
 * shared memory size is left out, the metadata's values before `>>>`. *ins is where the
 * insertion starts in `text` (-1: none) and *ins_len its length, so that error columns can be
 * given in the user's text.
 */
static char *complete_line(const struct triton_kernel *k, const char *text, long *ins, size_t *ins_len)
{
	const char *lt = strstr(text, "<<<"), *p, *last;
	char add[64] = "";
	int depth = 0, commas = 0;

	*ins = -1;
	*ins_len = 0;
	if (!lt)
		return xasprintf("// @kbx launch %s", text);
	for (p = last = lt + 3; *p; p++) {
		if (*p == '(' || *p == '[') {
			depth++;
		} else if ((*p == ')' || *p == ']') && depth) {
			depth--;
		} else if (!depth && *p == ',') {
			commas++;
			last = p + 1;
		} else if (!depth && !strncmp(p, ">>>", 3)) {
			break;
		}
	}
	while (last < p && (*last == ' ' || *last == '\t'))
		last++;
	/* nothing to complete, or a size left blank: launch.c says what is missing */
	if (!*p || last == p)
		return xasprintf("// @kbx launch %s", text);
	if (commas == 0)
		snprintf(add, sizeof(add), ", %d, %d", 32 * k->num_warps, k->shared);
	else if (commas == 1)
		snprintf(add, sizeof(add), ", %d", k->shared);
	*ins = (long)(p - text);
	*ins_len = strlen(add);
	return xasprintf("// @kbx launch %.*s%s%s", (int)(p - text), text, add, p);
}

#define DIRECTIVE_LEN 15  /* strlen("// @kbx launch ") */

/* Turn launch.c's "'where' line 1 column C: what" into one about the user's text. */
static enum kbx_status relocate_error(enum kbx_status st, const char *marker, const char *where, int line, long ins,
				      size_t ins_len)
{
	char *msg = xstrdup(kbx_last_error()), *prefix = xasprintf("'%s' line 1 column ", marker);
	const char *rest = msg;
	long col = 0;

	if (str_starts_with(msg, prefix)) {
		char *end;

		col = strtol(msg + strlen(prefix), &end, 10);
		if (str_starts_with(end, ": ")) {
			rest = end + 2;
			col -= DIRECTIVE_LEN;
			if (ins >= 0 && col - 1 >= ins + (long)ins_len)
				col -= (long)ins_len;
			else if (ins >= 0 && col - 1 >= ins)
				col = ins + 1;
			if (col < 1)
				col = 1;
		} else {
			col = 0;
		}
	} else if (str_starts_with(msg, "'") && strstr(msg, "': ")) {
		rest = strstr(msg, "': ") + 3;
	}
	if (col && line > 0)
		st = kbx_error(st, "'%s' line %d column %ld: %s", where, line, col, rest);
	else if (col)
		st = kbx_error(st, "'%s' column %ld: %s", where, col, rest);
	else
		st = kbx_error(st, "'%s': %s", where, rest);
	free(msg);
	free(prefix);
	return st;
}

static const char *const hidden_names[2] = { "triton_global_scratch", "triton_profile_scratch" };

static const char *hidden_versions(int n)
{
	return n == 0 ? "as Triton 3.0 to 3.2 compile" : n == 1 ? "as Triton 3.3 and 3.4 compile (global scratch)"
								 : "as Triton 3.5 and later compile (global and profile scratch)";
}

/* Check the launch against the kernel and append the hidden arguments; 0, or -1 with why. */
static int finish_launch(const struct triton_kernel *k, const struct task *t, int sms, struct kernel_spec *spec,
			 char *why, size_t whylen, struct sbuf *notes)
{
	struct launch *l = &spec->launches[0];
	long long v[3];
	int i, nhidden;

	if (strcmp(l->kernel, k->name)) {
		snprintf(why, whylen, "the launch names kernel '%s' but the Triton cache entry holds '%s'", l->kernel, k->name);
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (!const_int(l->block[i], &v[i])) {
			snprintf(why, whylen, "the launch's block must be a number (Triton's is 32 x num_warps = %d); leave it "
				 "out to take it from the metadata", 32 * k->num_warps);
			return -1;
		}
	}
	if (v[0] != 32LL * k->num_warps || v[1] != 1 || v[2] != 1) {
		snprintf(why, whylen, "the launch's block is %lld x %lld x %lld but the Triton metadata says num_warps %d, "
			 "so %d x 1 x 1; leave the block out to take it from the metadata", v[0], v[1], v[2], k->num_warps,
			 32 * k->num_warps);
		return -1;
	}
	if (!const_int(l->smem, &v[0]) || v[0] != k->shared) {
		snprintf(why, whylen, "the launch's shared memory size '%s' is not the %d bytes of the Triton metadata "
			 "(\"shared\"); leave it out to take it from the metadata", l->smem, k->shared);
		return -1;
	}
	if (l->nargs != k->nparams) {
		struct sbuf sig = SBUF_INIT;

		for (i = 0; i < k->nparams; i++)
			sbuf_addf(&sig, "%s%s%s%s", i ? ", " : "", k->params[i].name ? k->params[i].name : "",
				  k->params[i].name ? ": " : "", k->params[i].type);
		snprintf(why, whylen, "the Triton signature of '%s' has %d parameters (%s) but the launch passes %d; "
			 "constexpr parameters and integers Triton specialised to 1 are not passed", k->name, k->nparams,
			 sig.len ? sig.buf : "none", l->nargs);
		sbuf_release(&sig);
		return -1;
	}
	for (i = 0; i < k->nparams; i++)
		if (check_arg(t, i, &k->params[i], &l->args[i], why, whylen))
			return -1;

	/* What the binary declares beyond the signature are the hidden parameters. */
	nhidden = k->declared >= 0 ? k->declared - k->nparams : k->meta_hidden;
	if (nhidden != k->meta_hidden) {
		snprintf(why, whylen, "'%s' declares %d parameters, the Triton signature has %d, so %d are hidden; its "
			 "metadata describes %d (%s): the binary, its IR and its metadata do not belong together",
			 k->image_path, k->declared, k->nparams, nhidden, k->meta_hidden, hidden_versions(k->meta_hidden));
		return -1;
	}
	for (i = 0; k->declared_sizes && i < k->declared; i++) {
		size_t want = i < k->nparams ? param_bytes(&k->params[i]) : 8;

		if (want && k->declared_sizes[i] != want) {
			snprintf(why, whylen, "'%s' declares parameter %d with %zu bytes but %s is %s", k->image_path, i + 1,
				 k->declared_sizes[i], i < k->nparams ? "the Triton signature says it" : "a hidden parameter",
				 i < k->nparams ? k->params[i].type : "a pointer (8 bytes)");
			return -1;
		}
	}
	for (i = 0; i < k->nparams; i++) {
		const struct triton_param *p = &k->params[i];

		if (!p->is_ptr && p->divisibility > 1)
			sbuf_addf(notes, "%sparameter %d '%s' was specialised as divisible by %d (tt.divisibility): the kernel "
				  "assumes it, so cases where it is not may be wrong", notes->len ? "\n" : "", i + 1,
				  p->name ? p->name : l->args[i].name ? l->args[i].name : l->args[i].expr, p->divisibility);
	}

	if (nhidden > 0)
		l->args = xrealloc(l->args, (size_t)(l->nargs + nhidden) * sizeof(*l->args));
	for (i = 0; i < nhidden; i++) {
		long long size = i == 0 ? k->global_scratch_size : k->profile_scratch_size;
		long long align = i == 0 ? k->global_scratch_align : k->profile_scratch_align;
		struct launch_arg *a = &l->args[l->nargs];

		memset(a, 0, sizeof(*a));
		if (size <= 0) {
			a->cast = DT_I64;  /* a null pointer: 8 bytes of zero */
			a->expr = xstrdup("0");
		} else {
			struct scratch_decl *sd;
			char *g[3];
			int d;

			if (align > 256 || (align & (align - 1))) {
				snprintf(why, whylen, "%s needs %lld-byte alignment; kbx's buffers are 256-byte aligned",
					 hidden_names[i], align);
				return -1;
			}
			if (task_find_arg(t, hidden_names[i])) {
				snprintf(why, whylen, "task '%s' has an argument named '%s', the name kbx gives a hidden Triton "
					 "buffer", t->id, hidden_names[i]);
				return -1;
			}
			spec->scratch = xrealloc(spec->scratch, (size_t)(spec->nscratch + 1) * sizeof(*spec->scratch));
			sd = &spec->scratch[spec->nscratch++];
			memset(sd, 0, sizeof(*sd));
			sd->name = xstrdup(hidden_names[i]);
			sd->dtype = DT_U8;
			sd->line = l->line;
			sd->ndim = 1;
			sd->shape = xcalloc(1, sizeof(*sd->shape));
			for (d = 0; d < 3; d++)
				g[d] = subst_sms(l->grid[d], sms);
			/* Triton: grid x * y * z * num_ctas * size bytes (num_ctas is 1 here). */
			sd->shape[0] = xasprintf("%lld * (%s) * (%s) * (%s)", size, g[0], g[1], g[2]);
			for (d = 0; d < 3; d++)
				free(g[d]);
			a->name = xstrdup(hidden_names[i]);
		}
		l->nargs++;
	}
	l->cooperative |= k->cooperative;
	return 0;
}

enum kbx_status triton_build_spec(const struct triton_kernel *k, const struct task *t, const char *launch,
				  const char *where, int sms, struct kernel_spec *spec, char *why, size_t whylen,
				  char **notes)
{
	struct kernel_spec tmp;
	struct sbuf nb = SBUF_INIT;
	char *line, *file = NULL;
	const char *text = launch;
	long ins;
	size_t ins_len;
	int lineno = 0;
	enum kbx_status st;

	memset(spec, 0, sizeof(*spec));
	*why = '\0';
	if (notes)
		*notes = NULL;
	if (!text) {
		text = k->launch;
		lineno = k->launch_line;
		file = xasprintf("%s/%s", k->dir ? k->dir : ".", TRITON_LAUNCH_FILE);
		where = file;
	} else if (!where) {
		where = "--launch";
	}
	if (!text) {
		st = kbx_error(KBX_EINVAL, "no launch line for Triton kernel '%s': give one with --launch '%s<<<GRID>>>(ARGS)' "
			       "or write it in '%s'", k->name, k->name, file);
		free(file);
		return st;
	}
	if (strchr(text, '\n')) {
		st = kbx_error(KBX_EPARSE, "'%s': one launch line expected, found several lines", where);
		free(file);
		return st;
	}
	line = complete_line(k, text, &ins, &ins_len);
	st = launch_parse_source(line, where, &tmp);
	free(line);
	if (st) {
		st = relocate_error(st, where, where, lineno, ins, ins_len);
		free(file);
		return st;
	}
	if (tmp.nlaunches != 1 || tmp.nscratch) {
		kernel_spec_free(&tmp);
		st = kbx_error(KBX_EPARSE, "'%s': expected one launch line", where);
		free(file);
		return st;
	}
	free(file);
	tmp.launches[0].line = lineno ? lineno : 1;
	if (finish_launch(k, t, sms, &tmp, why, whylen, &nb)) {
		kernel_spec_free(&tmp);
		sbuf_release(&nb);
		return KBX_OK;
	}
	*spec = tmp;
	if (notes && nb.len)
		*notes = sbuf_detach(&nb);
	sbuf_release(&nb);
	return KBX_OK;
}

/* ------------------------------------------------------------------ engine ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

char *triton_describe(const struct triton_kernel *k)
{
	struct sbuf sb = SBUF_INIT;

	/* triton_version is written from 3.3 on; without it, no hidden parameter means 3.0 to 3.2 */
	sbuf_addf(&sb, "Triton %s kernel '%s' from '%s': %s",
		  k->version ? k->version : k->meta_hidden ? "3.x" : "3.0-3.2", k->name, k->dir, base_name(k->image_path));
	if (k->arch)
		sbuf_addf(&sb, " for sm_%d", k->arch);
	sbuf_addf(&sb, ", %d warps (%d threads), %d bytes of shared memory, %d parameters; hidden: ", k->num_warps,
		  32 * k->num_warps, k->shared, k->nparams);
	if (!k->meta_hidden)
		sbuf_adds(&sb, "none");
	if (k->meta_hidden >= 1 && k->global_scratch_size)
		sbuf_addf(&sb, "global scratch of %lld bytes per program", k->global_scratch_size);
	else if (k->meta_hidden >= 1)
		sbuf_adds(&sb, "global scratch (null)");
	if (k->meta_hidden >= 2 && k->profile_scratch_size)
		sbuf_addf(&sb, ", profile scratch of %lld bytes per program", k->profile_scratch_size);
	else if (k->meta_hidden >= 2)
		sbuf_adds(&sb, ", profile scratch (null)");
	if (k->cooperative)
		sbuf_adds(&sb, ", cooperative");
	return sbuf_detach(&sb);
}

/* Whether a binary for target `arch` runs on a device of `dev`: a cubin within its major
 * version on an equal or newer minor, except the arch-specific targets (sm_90a, sm_100a, which
 * Triton uses from 9.0 on) that run only where they were built for; PTX on newer devices. */
static int arch_fits(int arch, int dev, int is_ptx)
{
	if (arch >= 90)
		return dev == arch;
	if (is_ptx)
		return dev >= arch;
	return dev / 10 == arch / 10 && dev % 10 >= arch % 10;
}

enum kbx_status triton_prepare(const struct task *t, const char *dir, const char *launch, int device_arch, int sms,
			       struct kernel_spec *spec, struct compile_result *cr, void **image, size_t *image_size,
			       char *why, size_t whylen)
{
	struct triton_kernel k;
	double t0 = now_seconds();
	char *notes = NULL, *n, *next;
	enum kbx_status st;
	int line = 0, col = 0;

	memset(cr, 0, sizeof(*cr));
	memset(spec, 0, sizeof(*spec));
	*image = NULL;
	*image_size = 0;
	*why = '\0';
	cr->options = xstrdup("triton");
	snprintf(cr->arch, sizeof(cr->arch), "triton");
	st = triton_load(dir, &k);
	if (st == KBX_ENOMEM)
		return st;
	if (st) {
		cr->log = xstrdup(kbx_last_error());
		compile_result_add_diag(cr, 0, 0, "error", cr->log);
		cr->seconds = now_seconds() - t0;
		return KBX_OK;
	}
	if (k.arch)
		snprintf(cr->arch, sizeof(cr->arch), "sm_%d", k.arch);
	cr->log = triton_describe(&k);
	st = triton_build_spec(&k, t, launch, launch ? "--launch" : NULL, sms, spec, why, whylen, &notes);
	if (st) {
		/* "'PATH' line L column C: ..." or "'--launch' column C: ...": keep it whole as the
		 * diagnostic, placed where it points. */
		const char *m = kbx_last_error(), *at = strstr(m, "' line ");

		if (!at || sscanf(at, "' line %d column %d", &line, &col) < 1) {
			line = 0;
			at = strstr(m, "' column ");
			if (at && sscanf(at, "' column %d", &col) == 1)
				line = 1;
			else
				col = 0;
		}
		compile_result_add_diag(cr, line, col, "error", m);
		cr->seconds = now_seconds() - t0;
		triton_kernel_free(&k);
		return KBX_OK;
	}
	for (n = notes; n && *n; n = next) {
		next = strchr(n, '\n');
		if (next)
			*next++ = '\0';
		compile_result_add_diag(cr, 0, 0, "warning", n);
	}
	free(notes);
	if (!*why && device_arch > 0 && k.arch > 0 && !arch_fits(k.arch, device_arch, k.image_is_ptx))
		snprintf(why, whylen, "'%s' was compiled for sm_%d%s (Triton's target arch %d) and this GPU is sm_%d: compile "
			 "the kernel for this GPU", k.image_path, k.arch, k.arch >= 90 ? "a" : "", k.arch, device_arch);
	cr->ok = 1;
	cr->seconds = now_seconds() - t0;
	*image = k.image;
	*image_size = k.image_size;
	k.image = NULL;
	triton_kernel_free(&k);
	return KBX_OK;
}

enum kbx_status triton_source_text(const char *dir, const char *launch, char **out)
{
	struct triton_kernel k;
	struct sbuf sb = SBUF_INIT;
	char hash[65], *ir = NULL, *desc;
	size_t len;
	enum kbx_status st;

	*out = NULL;
	st = triton_load(dir, &k);
	if (st)
		return st;
	if (!launch && !k.launch) {
		st = kbx_error(KBX_EINVAL, "no launch line for Triton kernel '%s': give one with --launch '%s<<<GRID>>>(ARGS)' "
			       "or write it in '%s/%s'", k.name, k.name, dir, TRITON_LAUNCH_FILE);
		triton_kernel_free(&k);
		return st;
	}
	sha256_hex(k.image, k.image_size, hash);
	desc = triton_describe(&k);
	sbuf_addf(&sb, "// %s\n// %s sha256 %s\n// launch: %s\n", desc, base_name(k.image_path), hash,
		  launch ? launch : k.launch);
	free(desc);
	if (read_file(k.ir_path, &ir, &len) == KBX_OK) {
		sbuf_addf(&sb, "// %s:\n", base_name(k.ir_path));
		sbuf_add(&sb, ir, len);
	}
	kbx_clear_error();
	free(ir);
	triton_kernel_free(&k);
	*out = sbuf_detach(&sb);
	return KBX_OK;
}
