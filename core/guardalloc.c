#include "guardalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct gblock {
	uint64_t base;          /* the device allocation: guard, body, guard */
	size_t size;            /* the body's bytes */
	int live;
	int dirty;              /* used since the last check */
};

struct galloc {
	struct galloc_ops ops;
	size_t guard;
	int poison;
	struct gblock *b;
	size_t n, cap;
	long long unknown_frees;
	unsigned char *scratch; /* one guard zone's worth of host memory */
};

struct galloc *galloc_new(const struct galloc_ops *ops, size_t guard_bytes)
{
	struct galloc *a = xcalloc(1, sizeof(*a));

	a->ops = *ops;
	a->guard = guard_bytes;
	a->poison = 1;
	a->scratch = xmalloc(guard_bytes ? guard_bytes : 1);
	return a;
}

void galloc_destroy(struct galloc *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++)
		a->ops.free(a->ops.ctx, a->b[i].base);
	free(a->b);
	free(a->scratch);
	free(a);
}

void galloc_poison(struct galloc *a, int on)
{
	a->poison = on;
}

static uint64_t user_ptr(const struct galloc *a, const struct gblock *b)
{
	return b->base + a->guard;
}

/* A cached block of exactly this size: the tail guard must start where the body ends. */
static struct gblock *find_cached(struct galloc *a, size_t size)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!a->b[i].live && a->b[i].size == size)
			return &a->b[i];
	return NULL;
}

void galloc_trim(struct galloc *a)
{
	size_t i, k = 0;

	for (i = 0; i < a->n; i++) {
		if (!a->b[i].live && !a->b[i].dirty)
			a->ops.free(a->ops.ctx, a->b[i].base);
		else
			a->b[k++] = a->b[i];
	}
	a->n = k;
}

static struct gblock *new_block(struct galloc *a, size_t size, uint64_t stream)
{
	uint64_t base = 0;
	size_t total = size + 2 * a->guard;

	if (a->ops.alloc(a->ops.ctx, total, &base)) {
		galloc_trim(a);
		if (a->ops.alloc(a->ops.ctx, total, &base))
			return NULL;
	}
	if (a->guard && (a->ops.fill(a->ops.ctx, base, GALLOC_GUARD_BYTE, a->guard, stream) ||
			 a->ops.fill(a->ops.ctx, base + a->guard + size, GALLOC_GUARD_BYTE, a->guard, stream))) {
		a->ops.free(a->ops.ctx, base);
		return NULL;
	}
	XGROW(a->b, a->n + 1, a->cap);
	a->b[a->n].base = base;
	a->b[a->n].size = size;
	a->b[a->n].live = 0;
	a->b[a->n].dirty = 0;
	return &a->b[a->n++];
}

uint64_t galloc_alloc(struct galloc *a, size_t size, uint64_t stream)
{
	struct gblock *b = find_cached(a, size);

	if (!b)
		b = new_block(a, size, stream);
	if (!b)
		return 0;
	if (a->poison && size && a->ops.fill(a->ops.ctx, user_ptr(a, b), GALLOC_POISON_BYTE, size, stream))
		return 0;
	b->live = 1;
	b->dirty = 1;
	return user_ptr(a, b);
}

void galloc_free(struct galloc *a, uint64_t p)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->b[i].live && user_ptr(a, &a->b[i]) == p) {
			a->b[i].live = 0;
			return;
		}
	a->unknown_frees++;
}

/* The first and last written byte of a guard zone, or -1 when it is intact. */
static long first_written(const unsigned char *z, size_t n, long *last)
{
	long first = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (z[i] != GALLOC_GUARD_BYTE) {
			if (first < 0)
				first = (long)i;
			*last = (long)i;
		}
	return first;
}

/* 0 intact, 1 damaged (described in out when out is still empty), -1 unreadable */
static int check_zone(struct galloc *a, const struct gblock *b, int tail, char *out, size_t outlen)
{
	uint64_t at = tail ? b->base + a->guard + b->size : b->base;
	long first, last = -1;

	if (a->ops.read(a->ops.ctx, a->scratch, at, a->guard))
		return -1;
	first = first_written(a->scratch, a->guard, &last);
	if (first < 0)
		return 0;
	if (!*out) {
		if (tail)
			snprintf(out, outlen, "a block of %zu bytes it allocated was written past its end (bytes +%ld to +%ld)",
				 b->size, first, last);
		else
			snprintf(out, outlen, "a block of %zu bytes it allocated was written before its start (bytes -%ld to -%ld)",
				 b->size, (long)a->guard - first, (long)a->guard - last);
	}
	a->ops.fill(a->ops.ctx, at, GALLOC_GUARD_BYTE, a->guard, 0);
	return 1;
}

int galloc_check(struct galloc *a, char *out, size_t outlen)
{
	int damaged = 0;
	size_t i;

	if (outlen)
		*out = '\0';
	if (a->unknown_frees) {
		snprintf(out, outlen, "%lld frees of addresses it never allocated", a->unknown_frees);
		a->unknown_frees = 0;
		damaged++;
	}
	if (!a->guard)
		return damaged;
	for (i = 0; i < a->n; i++) {
		struct gblock *b = &a->b[i];
		int head, tail;

		if (!b->dirty)
			continue;
		head = check_zone(a, b, 0, out, outlen);
		tail = check_zone(a, b, 1, out, outlen);
		if (head < 0 || tail < 0) {
			if (!*out)
				snprintf(out, outlen, "the guard zones of a block of %zu bytes could not be read", b->size);
			damaged++;
			continue;
		}
		damaged += head || tail;
		if (!b->live)
			b->dirty = 0;
	}
	return damaged;
}

void galloc_stats(const struct galloc *a, long long *live_blocks, long long *live_bytes, long long *cached_blocks)
{
	size_t i;

	*live_blocks = *live_bytes = *cached_blocks = 0;
	for (i = 0; i < a->n; i++) {
		if (a->b[i].live) {
			(*live_blocks)++;
			*live_bytes += (long long)a->b[i].size;
		} else {
			(*cached_blocks)++;
		}
	}
}
