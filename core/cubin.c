/* Reading kernel parameters from a cubin's ELF sections: see cubin.h. */
#include "cubin.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "util.h"

#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define MAX_PARAMS 4096

#define SHT_SYMTAB 2
#define SHT_NOBITS 8
#define SHF_WRITE 0x1
#define SHF_ALLOC 0x2
#define STT_OBJECT 1
#define SYM_SIZE 24

struct elf {
	const unsigned char *d;
	size_t size;
	uint64_t shoff;
	unsigned shentsize, shnum;
	uint64_t strtab_off, strtab_size;
};

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* [off, off + len) lies inside the image */
static int inside(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static enum kbx_status elf_open(const void *image, size_t size, struct elf *e)
{
	const unsigned char *d = image;
	unsigned shstrndx;
	const unsigned char *sh;

	memset(e, 0, sizeof(*e));
	e->d = d;
	e->size = size;
	if (!d || size < 64 || memcmp(d, "\177ELF", 4) || d[4] != 2 /* 64-bit */ || d[5] != 1 /* little-endian */)
		return kbx_error(KBX_EPARSE, "not a 64-bit little-endian ELF image");
	e->shoff = rd64(d + 0x28);
	e->shentsize = rd16(d + 0x3A);
	e->shnum = rd16(d + 0x3C);
	shstrndx = rd16(d + 0x3E);
	if (e->shentsize < 64 || !e->shnum || shstrndx >= e->shnum ||
	    !inside(e, e->shoff, (uint64_t)e->shentsize * e->shnum))
		return kbx_error(KBX_EPARSE, "ELF section headers out of range");
	sh = d + e->shoff + (uint64_t)shstrndx * e->shentsize;
	e->strtab_off = rd64(sh + 0x18);
	e->strtab_size = rd64(sh + 0x20);
	if (!inside(e, e->strtab_off, e->strtab_size))
		return kbx_error(KBX_EPARSE, "ELF section names out of range");
	return KBX_OK;
}

/* The section called `prefix` `name`: its offset and size in the image; 0 when absent. */
static int find_section(const struct elf *e, const char *prefix, const char *name, uint64_t *off, uint64_t *len)
{
	size_t lp = strlen(prefix), ln = strlen(name);
	unsigned i;

	for (i = 0; i < e->shnum; i++) {
		const unsigned char *sh = e->d + e->shoff + (uint64_t)i * e->shentsize;
		uint64_t noff = rd32(sh);
		const char *s = (const char *)e->d + e->strtab_off + noff;

		if (noff >= e->strtab_size || e->strtab_size - noff < lp + ln + 1)
			continue;
		if (memcmp(s, prefix, lp) || memcmp(s + lp, name, ln) || s[lp + ln])
			continue;
		*off = rd64(sh + 0x18);
		*len = rd64(sh + 0x20);
		return 1;
	}
	return 0;
}

enum kbx_status cubin_kernel_params(const void *image, size_t size, const char *name, size_t *sizes, int max,
				    int *count)
{
	struct elf e;
	uint64_t off, len, i;
	enum kbx_status st;
	unsigned char seen[MAX_PARAMS];
	int n = 0, records = 0;

	*count = 0;
	if (max > 0)
		memset(sizes, 0, (size_t)max * sizeof(*sizes));
	memset(seen, 0, sizeof(seen));
	if ((st = elf_open(image, size, &e)))
		return st;
	if (!find_section(&e, ".text.", name, &off, &len))
		return kbx_error(KBX_ENOTFOUND, "no kernel '%s' in the image", name);
	if (!find_section(&e, ".nv.info.", name, &off, &len))
		return KBX_OK;  /* no attributes: no parameters */
	if (!inside(&e, off, len))
		return kbx_error(KBX_EPARSE, "'.nv.info.%s' out of range", name);
	for (i = 0; i + 4 <= len;) {
		const unsigned char *r = e.d + off + i;
		unsigned fmt = r[0], attr = r[1];

		if (fmt != EIFMT_SVAL) {
			if (fmt < 1 || fmt > 3)
				return kbx_error(KBX_EPARSE, "'.nv.info.%s': unknown record format %u", name, fmt);
			i += 4;
			continue;
		}
		if (i + 4 + rd16(r + 2) > len)
			return kbx_error(KBX_EPARSE, "'.nv.info.%s': a record runs past the section", name);
		if (attr == EIATTR_KPARAM_INFO) {
			unsigned ordinal;
			size_t psize;

			if (rd16(r + 2) < 12)
				return kbx_error(KBX_EPARSE, "'.nv.info.%s': short parameter record", name);
			ordinal = rd16(r + 8);
			psize = rd32(r + 12) >> 18;
			if (ordinal >= MAX_PARAMS || seen[ordinal])
				return kbx_error(KBX_EPARSE, "'.nv.info.%s': parameter ordinal %u out of range or twice", name,
						 ordinal);
			seen[ordinal] = 1;
			if ((int)ordinal >= n)
				n = (int)ordinal + 1;
			records++;
			if ((int)ordinal < max)
				sizes[ordinal] = psize;
		}
		i += 4 + rd16(r + 2);
	}
	/* one record per parameter, ordinals 0 .. n - 1, none missing */
	if (records != n)
		return kbx_error(KBX_EPARSE, "'.nv.info.%s': %d parameter records for %d parameters", name, records, n);
	*count = n;
	return KBX_OK;
}

/* ------------------------------------------------------------ globals ---- */

static const unsigned char *section_header(const struct elf *e, unsigned i)
{
	return e->d + e->shoff + (uint64_t)i * e->shentsize;
}

/* The name of section i, or "" when it lies outside the names. */
static const char *section_name(const struct elf *e, unsigned i)
{
	uint64_t noff = rd32(section_header(e, i));

	if (noff >= e->strtab_size || !memchr(e->d + e->strtab_off + noff, '\0', e->strtab_size - noff))
		return "";
	return (const char *)e->d + e->strtab_off + noff;
}

/* Allocated, writable, and neither shared nor local memory: where a global lives. */
static int is_global_memory(const struct elf *e, unsigned i)
{
	uint64_t flags = rd64(section_header(e, i) + 0x08);
	const char *name = section_name(e, i);

	if ((flags & (SHF_WRITE | SHF_ALLOC)) != (SHF_WRITE | SHF_ALLOC))
		return 0;
	return strncmp(name, ".nv.shared", 10) && strncmp(name, ".nv.local", 9) && strncmp(name, ".nv.reserved", 12);
}

/* Symbol s of table `tab` (header of a SHT_SYMTAB section) as one global; 0 when it is none. */
static enum kbx_status symbol_global(const struct elf *e, const unsigned char *tab, const unsigned char *s,
				     struct cubin_global *g, int *is_global)
{
	unsigned link = rd32(tab + 0x28), shndx = rd16(s + 6);
	uint64_t stroff, strsize, name_off = rd32(s), value = rd64(s + 8), size = rd64(s + 16);
	const unsigned char *strh, *sec;
	const char *name;

	*is_global = 0;
	if ((s[4] & 0xf) != STT_OBJECT || !shndx || shndx >= e->shnum || !is_global_memory(e, shndx))
		return KBX_OK;
	if (link >= e->shnum)
		return kbx_error(KBX_EPARSE, "symbol table names out of range");
	strh = section_header(e, link);
	stroff = rd64(strh + 0x18);
	strsize = rd64(strh + 0x20);
	if (!inside(e, stroff, strsize) || name_off >= strsize ||
	    !memchr(e->d + stroff + name_off, '\0', strsize - name_off))
		return kbx_error(KBX_EPARSE, "a symbol's name is out of range");
	name = (const char *)e->d + stroff + name_off;
	sec = section_header(e, shndx);
	if (rd32(sec + 0x04) != SHT_NOBITS &&
	    (value > rd64(sec + 0x20) || size > rd64(sec + 0x20) - value || !inside(e, rd64(sec + 0x18) + value, size)))
		return kbx_error(KBX_EPARSE, "global '%s' lies outside its section", name);
	if (size > ((uint64_t)1 << 34))
		return kbx_error(KBX_EPARSE, "global '%s' is implausibly large", name);
	memset(g, 0, sizeof(*g));
	g->symbol = xstrdup(name);
	g->name = cubin_demangle(name);
	g->section = xstrdup(section_name(e, shndx));
	g->size = (size_t)size;
	g->init = xcalloc(size ? (size_t)size : 1, 1);
	if (rd32(sec + 0x04) != SHT_NOBITS)
		memcpy(g->init, e->d + rd64(sec + 0x18) + value, (size_t)size);
	*is_global = 1;
	return KBX_OK;
}

enum kbx_status cubin_globals(const void *image, size_t size, struct cubin_global **out, int *count)
{
	struct elf e;
	enum kbx_status st;
	size_t cap = 0;
	unsigned i;

	*out = NULL;
	*count = 0;
	if ((st = elf_open(image, size, &e)))
		return st;
	for (i = 0; i < e.shnum; i++) {
		const unsigned char *tab = section_header(&e, i);
		uint64_t off = rd64(tab + 0x18), len = rd64(tab + 0x20), k;

		if (rd32(tab + 0x04) != SHT_SYMTAB)
			continue;
		if (!inside(&e, off, len))
			st = kbx_error(KBX_EPARSE, "symbol table out of range");
		for (k = 0; !st && k + SYM_SIZE <= len; k += SYM_SIZE) {
			struct cubin_global g;
			int is_global = 0;

			st = symbol_global(&e, tab, e.d + off + k, &g, &is_global);
			if (!st && is_global) {
				XGROW(*out, (size_t)*count + 1, cap);
				(*out)[(*count)++] = g;
			}
		}
		if (st)
			break;
	}
	if (st) {
		cubin_globals_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return st;
}

void cubin_globals_free(struct cubin_global *g, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(g[i].symbol);
		free(g[i].name);
		free(g[i].section);
		free(g[i].init);
	}
	free(g);
}

/* <number><identifier> at *p, appended to sb; 0 when *p is not one. */
static int source_name(const char **p, struct sbuf *sb)
{
	char *end;
	unsigned long n = strtoul(*p, &end, 10);

	if (end == *p || !n || strnlen(end, n) < n)
		return 0;
	sbuf_add(sb, end, n);
	*p = end + n;
	return 1;
}

/* Past the balanced `I ... E` (or L, N, X ... E) at *p; 0 when it does not close. */
static int skip_balanced(const char **p)
{
	int depth = 0;
	const char *s = *p;

	do {
		if (isdigit((unsigned char)*s)) {
			char *end;
			unsigned long n = strtoul(s, &end, 10);

			if (strnlen(end, n) < n)
				return 0;
			s = end + n;
			continue;
		}
		if (!*s)
			return 0;
		if ((*s == 'S' || *s == 'T') && (s[1] == '_' || isdigit((unsigned char)s[1]) || isupper((unsigned char)s[1]))) {
			/* a substitution or template parameter: S_, S0_, T_, T1_ */
			s++;
			while (isdigit((unsigned char)*s) || isupper((unsigned char)*s))
				s++;
			if (*s++ != '_')
				return 0;
			continue;
		}
		if (*s == 'S' && islower((unsigned char)s[1])) {
			s += 2;  /* St, Sa, Ss, ...: std:: abbreviations */
			continue;
		}
		if (*s == 'L' && islower((unsigned char)s[1])) {
			/* a literal: L, a builtin type, a value (digits that are no length), E */
			const char *e = strchr(s, 'E');

			if (!e)
				return 0;
			s = e + 1;
			continue;
		}
		if (*s == 'I' || *s == 'L' || *s == 'N' || *s == 'X')
			depth++;
		else if (*s == 'E')
			depth--;
		s++;
	} while (depth > 0);
	*p = s;
	return 1;
}

char *cubin_demangle(const char *sym)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = sym + 2;
	int nested, parts = 0, bad = 0;

	if (strncmp(sym, "_Z", 2))
		return xstrdup(sym);
	if (*p == 'L')
		p++;
	nested = *p == 'N';
	if (nested) {
		p++;
		while (*p == 'r' || *p == 'V' || *p == 'K')
			p++;
	}
	while (!bad && *p && *p != 'E') {
		if (!strncmp(p, "St", 2)) {
			sbuf_addf(&sb, "%sstd", parts++ ? "::" : "");
			p += 2;
		} else if (*p == 'I') {
			bad = !parts || !skip_balanced(&p);
			sbuf_addf(&sb, "<...>");
		} else {
			if (parts++)
				sbuf_addf(&sb, "::");
			bad = !source_name(&p, &sb);
		}
		if (!nested && *p != 'I')
			break;
	}
	if (bad || !parts || (nested && *p != 'E')) {
		sbuf_release(&sb);
		return xstrdup(sym);
	}
	return sbuf_detach(&sb);
}

int cubin_global_line(const char *src, const char *name)
{
	const char *last = name, *s, *p;
	char *code = rules_code_only(src ? src : ""), *id;
	size_t len;
	int line = 0;

	for (s = name; (s = strstr(s, "::")) != NULL; s += 2)
		last = s + 2;
	len = strcspn(last, "<");
	id = xstrndup(last, len);
	for (p = code; len && (p = strstr(p, id)) != NULL; p++) {
		int before = p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
		int after = isalnum((unsigned char)p[len]) || p[len] == '_';
		const char *bol = p;

		while (bol > code && bol[-1] != '\n')
			bol--;
		bol += strspn(bol, " \t");
		/* not a member's name, nor a preprocessor line (a macro's body names no global) */
		if (before || after || *bol == '#')
			continue;
		line = 1;
		for (s = code; s < p; s++)
			line += *s == '\n';
		break;
	}
	free(id);
	free(code);
	return line;
}

static const char *last_component(const char *name)
{
	const char *s, *last = name;

	for (s = name; (s = strstr(s, "::")) != NULL; s += 2)
		last = s + 2;
	return last;
}

/* Whether the word at p is `const`, `constexpr`, `constinit` or `consteval` (*len: its length). */
static int const_word(const char *line, const char *p, size_t *len)
{
	static const char *const words[] = { "constexpr", "constinit", "consteval", "const" };
	size_t i;

	if (p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		return 0;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		*len = strlen(words[i]);
		if (!strncmp(p, words[i], *len) && !isalnum((unsigned char)p[*len]) && p[*len] != '_')
			return 1;
	}
	return 0;
}

/* Whether the declaration on `line` makes `name` (NULL: the first word after the type) read-only:
 * constexpr and friends anywhere before it, or a const with no '*' between it and the name
 * (`const float *p` is a writable pointer, `float *const p` is not). */
static int declared_const(const char *line, const char *name)
{
	char *id = name ? xstrndup(name, strcspn(name, "<")) : NULL;
	const char *end = id ? strstr(line, id) : NULL, *p;
	int ro = 0;
	size_t len;

	free(id);
	if (!end)
		end = line + strlen(line);
	for (p = line; p < end; p++) {
		if (*p == '*' || *p == '&')
			ro = 0;
		else if (const_word(line, p, &len)) {
			ro = 1;
			if (len > 5)
				return 1;
			p += len - 1;
		}
	}
	return ro;
}

/* The name without the "_INTERNAL_<hash>_<file>::" wrapper NVRTC gives internal-linkage names. */
static const char *unwrapped(const char *name)
{
	const char *s = name;

	if (!strncmp(s, "_INTERNAL_", 10) && (s = strstr(s, "::")) != NULL)
		return s + 2;
	return name;
}

int cubin_global_is_own(const char *src, const struct cubin_global *g, int *line)
{
	static const char *const toolkit[] = { "cuda::", "std::", "cooperative_groups::", "cub::", "thrust::", "nv::",
					       "__" };
	const char *name = unwrapped(g->name), *m = g->symbol;
	char *code, *at, *end;
	size_t i;
	int own = 1, k;

	*line = 0;
	for (i = 0; i < sizeof(toolkit) / sizeof(toolkit[0]); i++)
		if (!strncmp(name, toolkit[i], strlen(toolkit[i])))
			return 0;
	/* a name too intricate to demangle: its outermost namespace from the mangled form */
	if (!strncmp(m, "_ZN", 3) && (!strncmp(m + 3, "St", 2) || !strncmp(m + 3, "4cuda", 5) ||
				       !strncmp(m + 3, "18cooperative_groups", 20) || !strncmp(m + 3, "3cub", 4) ||
				       !strncmp(m + 3, "6thrust", 7) || !strncmp(m + 3, "2nv", 3)))
		return 0;
	*line = cubin_global_line(src, name);
	if (!*line)
		return 1;
	code = rules_code_only(src ? src : "");
	for (at = code, k = 1; k < *line; k++)
		at = strchr(at, '\n') + 1;
	end = strchr(at, '\n');
	if (end)
		*end = '\0';
	own = !declared_const(at, last_component(name));
	free(code);
	return own;
}
