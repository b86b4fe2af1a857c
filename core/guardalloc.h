/*
 * guardalloc.h - a device allocator whose blocks sit between guard zones and start poisoned.
 *
 * The Python worker hands it to torch (pyhost.h: kbx_torch_alloc), so that every tensor a
 * Python candidate allocates behaves like the engine's own candidate buffers: its body starts
 * as all-ones bytes (NaN in every float type), so an output element the candidate never writes
 * shows, and a write past either end lands in a guard zone that galloc_check finds.
 *
 * Freed blocks are kept and handed out again for the same size (torch's own allocator caches
 * too, so timings stay comparable), re-poisoned on the allocating stream while poisoning is
 * on. A freed block is checked with the live ones at the next galloc_check: a kernel may still
 * be writing it when torch frees it. Memory operations go through galloc_ops, so the logic is
 * tested on host memory.
 */
#ifndef KBX_GUARDALLOC_H
#define KBX_GUARDALLOC_H

#include <stddef.h>
#include <stdint.h>

#define GALLOC_GUARD_BYTE 0xCB
#define GALLOC_POISON_BYTE 0xFF

struct galloc_ops {
	void *ctx;
	int (*alloc)(void *ctx, size_t bytes, uint64_t *out);                 /* 0 ok */
	void (*free)(void *ctx, uint64_t p);
	int (*fill)(void *ctx, uint64_t p, unsigned char v, size_t n, uint64_t stream);   /* 0 ok */
	int (*read)(void *ctx, void *dst, uint64_t src, size_t n);           /* waits for the device; 0 ok */
};

struct galloc;

struct galloc *galloc_new(const struct galloc_ops *ops, size_t guard_bytes);
void galloc_destroy(struct galloc *a);

/* A block of `size` bytes (the user's address), or 0 when the device has no memory left even
 * after the cache was given back. */
uint64_t galloc_alloc(struct galloc *a, size_t size, uint64_t stream);
/* Back to the cache; an unknown address is counted (galloc_check reports it). */
void galloc_free(struct galloc *a, uint64_t p);
void galloc_poison(struct galloc *a, int on);
/* Check the guard zones of live blocks and of blocks freed since the last check. 0 when all are
 * intact; else the number of damaged blocks, the first described in out ("a block of 4096
 * bytes: 12 bytes past its end written"). A damaged zone is restored, so that it is reported once. */
int galloc_check(struct galloc *a, char *out, size_t outlen);
/* Give every cached block back to the device. */
void galloc_trim(struct galloc *a);
void galloc_stats(const struct galloc *a, long long *live_blocks, long long *live_bytes, long long *cached_blocks);

#endif
