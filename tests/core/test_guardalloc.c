/* The guard-zone allocator the Python worker gives torch (core/guardalloc.h), on host memory:
 * poisoning, guard zones found written on either side and restored, exact-size reuse, freed
 * blocks checked once, unknown frees, running out of memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/guardalloc.h"

struct host_mem {
	int allocs, frees, fails_left_ok;   /* fails_left_ok < 0: never fail */
	size_t live_bytes, limit;
};

static int h_alloc(void *ctx, size_t bytes, uint64_t *out)
{
	struct host_mem *m = ctx;
	void *p;

	if (m->limit && m->live_bytes + bytes > m->limit)
		return -1;
	p = malloc(bytes + sizeof(size_t));
	if (!p)
		return -1;
	*(size_t *)p = bytes;
	m->allocs++;
	m->live_bytes += bytes;
	*out = (uint64_t)(uintptr_t)((char *)p + sizeof(size_t));
	return 0;
}

static void h_free(void *ctx, uint64_t p)
{
	struct host_mem *m = ctx;
	char *base = (char *)(uintptr_t)p - sizeof(size_t);

	m->frees++;
	m->live_bytes -= *(size_t *)base;
	free(base);
}

static int h_fill(void *ctx, uint64_t p, unsigned char v, size_t n, uint64_t stream)
{
	(void)ctx;
	(void)stream;
	memset((void *)(uintptr_t)p, v, n);
	return 0;
}

static int h_read(void *ctx, void *dst, uint64_t src, size_t n)
{
	(void)ctx;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

static struct galloc *heap(struct host_mem *m, size_t guard)
{
	struct galloc_ops ops = { m, h_alloc, h_free, h_fill, h_read };

	memset(m, 0, sizeof(*m));
	return galloc_new(&ops, guard);
}

static void test_poison_and_clean(void **state)
{
	struct host_mem m;
	struct galloc *a = heap(&m, 64);
	unsigned char *p = (unsigned char *)(uintptr_t)galloc_alloc(a, 100, 0);
	char msg[256];
	int i;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < 100; i++)
		assert_int_equal(p[i], GALLOC_POISON_BYTE);
	memset(p, 0, 100);           /* writes exactly its own bytes */
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	galloc_destroy(a);
	assert_int_equal(m.allocs, m.frees);
}

static void test_past_end_and_before_start(void **state)
{
	struct host_mem m;
	struct galloc *a = heap(&m, 64);
	unsigned char *p = (unsigned char *)(uintptr_t)galloc_alloc(a, 10, 0);
	char msg[256];

	(void)state;
	p[10] = 1;                   /* one byte past the end */
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "past its end (bytes +0 to +0)"));
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 0);   /* restored: reported once */
	p[-3] = 7;
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "before its start (bytes -3 to -3)"));
	galloc_destroy(a);
}

static void test_reuse_exact_size_and_freed_checked(void **state)
{
	struct host_mem m;
	struct galloc *a = heap(&m, 32);
	uint64_t p = galloc_alloc(a, 48, 0), q;
	char msg[256];

	(void)state;
	galloc_free(a, p);
	((unsigned char *)(uintptr_t)p)[48] = 9;   /* a late write past the end of a freed block */
	q = galloc_alloc(a, 64, 0);                /* another size: a new block */
	assert_int_not_equal(q, p);
	assert_int_equal(m.allocs, 2);
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "48 bytes"));
	q = galloc_alloc(a, 48, 0);                /* the freed one again, poisoned again */
	assert_int_equal(q, p);
	assert_int_equal(m.allocs, 2);
	assert_int_equal(((unsigned char *)(uintptr_t)q)[0], GALLOC_POISON_BYTE);
	galloc_poison(a, 0);
	galloc_free(a, q);
	memset((void *)(uintptr_t)p, 0x11, 48);
	q = galloc_alloc(a, 48, 0);                /* not poisoned while timing */
	assert_int_equal(((unsigned char *)(uintptr_t)q)[0], 0x11);
	galloc_destroy(a);
	assert_int_equal(m.allocs, m.frees);
}

static void test_unknown_free_and_stats(void **state)
{
	struct host_mem m;
	struct galloc *a = heap(&m, 16);
	long long blocks, bytes, cached;
	char msg[256];
	uint64_t p = galloc_alloc(a, 8, 0);

	(void)state;
	galloc_free(a, p + 4);
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "never allocated"));
	galloc_stats(a, &blocks, &bytes, &cached);
	assert_int_equal(blocks, 1);
	assert_int_equal(bytes, 8);
	assert_int_equal(cached, 0);
	galloc_free(a, p);
	galloc_stats(a, &blocks, &bytes, &cached);
	assert_int_equal(blocks, 0);
	assert_int_equal(cached, 1);
	galloc_destroy(a);
}

static void test_out_of_memory_trims_cache(void **state)
{
	struct host_mem m;
	struct galloc *a = heap(&m, 16);
	uint64_t p, q;
	char msg[64];

	(void)state;
	m.limit = 200;
	p = galloc_alloc(a, 100, 0);       /* 132 bytes with its guards */
	assert_int_not_equal(p, 0);
	assert_int_equal(galloc_alloc(a, 100, 0) == 0, 1);   /* no room for a second */
	galloc_free(a, p);
	assert_int_equal(galloc_check(a, msg, sizeof(msg)), 0);  /* checked: may be given back */
	q = galloc_alloc(a, 50, 0);        /* the cached block is given back to make room */
	assert_int_not_equal(q, 0);
	assert_int_equal(m.frees, 1);
	galloc_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poison_and_clean),
		cmocka_unit_test(test_past_end_and_before_start),
		cmocka_unit_test(test_reuse_exact_size_and_freed_checked),
		cmocka_unit_test(test_unknown_free_and_stats),
		cmocka_unit_test(test_out_of_memory_trims_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
