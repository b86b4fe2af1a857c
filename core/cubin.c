/* Reading kernel parameters from a cubin's ELF sections: see cubin.h. */
#include "cubin.h"

#include <stdint.h>
#include <string.h>

#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define MAX_PARAMS 4096

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
