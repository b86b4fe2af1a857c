/*
 * refout.h - the reference's outputs at a perf row, kept across runs.
 *
 * Every candidate of a task is checked against the same reference on the same inputs at each
 * perf row (before timing, and on fresh inputs after it). Where the reference is slow (a
 * determinant, an eigensolver: seconds per row) running it again for every candidate costs more
 * than the candidate's own check. Its outputs are kept in the history (db/refouts.c) under a key
 * made of everything they depend on: kbx's version, the GPU's model and SM count (a reference
 * may split its work by SM), the task, the reference's compiled image, the row's bindings and
 * sizes, and the bytes of every input as they lay on the device (a digest of each), so a
 * changed generator, seed, size or reference never finds them.
 *
 * A run of the reference's own image (a sweep of the references) keeps them at both inputs of
 * each row, the fresh ones after timing included, so that an evaluation after a sweep need not
 * run the reference at either check.
 *
 * Only outputs that cost more to compute than to load are kept (refout_worth_keeping). A
 * candidate judged wrong against kept outputs is judged again against the reference run live
 * (core/engine_refout.c): a kept output can make a run faster, never change a failing verdict or
 * its report. --retime-reference runs the reference live at every perf row.
 */
#ifndef KBX_REFOUT_H
#define KBX_REFOUT_H
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct problem;

#define REFOUT_MIN_LAUNCH_S 0.02          /* a reference faster than this is simply run again */
#define REFOUT_LOAD_BYTES_PER_S 1e9       /* a kept output is read back at about this rate */
#define REFOUT_MAX_BYTES ((size_t)256 << 20) /* per key: larger outputs are never kept */

/* Kept outputs: get returns 0 with a malloc'd blob (the caller frees) on a hit; put replaces. */
struct ref_output_cache {
	void *ctx;
	int (*get)(void *ctx, const char *key, void **blob, size_t *size);
	void (*put)(void *ctx, const char *key, const char *task_id, const void *blob, size_t size);
};

/* What the outputs depend on besides the problem (pb: bindings, buffers). */
struct refout_id {
	const char *kbx_version;
	const char *gpu_name;
	int cc_major, cc_minor, sms;
	const char *task_id;
	const char *ref_image_hash;       /* sha256 of the reference's compiled image, hex */
	const char *inputs_key;           /* the name the inputs were drawn under ("perf3") */
	unsigned long long seed;
	const uint64_t *input_digests;    /* one per buffer of pb (in and inout ones read) */
	char digest_kind;                 /* 'd': computed on the device, 'h': on the host */
};

/* The key of id and pb: 64 hex digits. */
void refout_key(const struct refout_id *id, const struct problem *pb, char out[65]);

/* 1 when outputs of `bytes` that took `launch_s` to compute are worth keeping. */
int refout_worth_keeping(double launch_s, size_t bytes);

/* The bytes of pb's outputs (every buffer that is not an input) in all; *count: how many. */
size_t refout_output_bytes(const struct problem *pb, size_t *count);

/* The outputs of pb (out[i] for each buffer that is not an input; NULL entries elsewhere) as one
 * blob: a header naming each output's size, then their bytes. Caller frees. */
void *refout_pack(const struct problem *pb, void *const *out, size_t *size);

/* The blob back as outputs of pb (NULL entries for inputs, nbufs + 1 slots, as
 * engine_fetch_outputs gives); KBX_EINVAL, nothing allocated, when it is not one that
 * refout_pack made for outputs of these sizes. */
enum kbx_status refout_unpack(const struct problem *pb, const void *blob, size_t size, void ***out);

#endif
