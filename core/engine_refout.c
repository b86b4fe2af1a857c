/*
 * The reference's outputs at a perf row: run live, or kept from an earlier run (refout.h).
 *
 * The key holds a digest of every input as it lies in the reference's buffers, taken on the
 * device by the comparison kernel's digest (or on the host when the inputs were drawn there and
 * the kernel is not loaded): whatever drew the inputs, the same bytes find the same outputs.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "gpucompare.h"
#include "util.h"

int engine_refout_key(struct run *r, const struct case_ctx *c, const struct dev_set *set, const char *inputs_key,
		      char key[65])
{
	const struct ref_output_cache *kc = r->o->ref_outputs;
	const struct problem *pb = &c->pb;
	uint64_t *digests;
	struct refout_id id;
	int i, ok = 1, device;

	if (!inputs_key || !kc || !kc->get || !kc->put || r->o->retime_reference || !r->ref_hash[0] || r->ref.host)
		return 0;
	digests = xcalloc((size_t)pb->nbufs + 1, sizeof(*digests));
	device = engine_gpu_compare_load(r);
	for (i = 0; i < pb->nbufs && ok; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (b->arg->dir == ARG_OUT)
			continue;
		if (device) {
			if (gpucompare_digest(r->gcmp, set->args[b->arg - r->t->args].ptr, b->bytes, (uint64_t)i,
					      &digests[i])) {
				kbx_clear_error();
				ok = 0;
			}
		} else if (c->in && c->in[i]) {
			digests[i] = gpucompare_digest_host(c->in[i], b->bytes, (uint64_t)i);
		} else {
			ok = 0;   /* drawn on the device, and no kernel to digest it there */
		}
	}
	if (ok) {
		memset(&id, 0, sizeof(id));
		id.kbx_version = PACKAGE_VERSION;
		id.gpu_name = r->info.name;
		id.cc_major = r->info.cc_major;
		id.cc_minor = r->info.cc_minor;
		id.sms = r->info.sms;
		id.task_id = r->t->id;
		id.ref_image_hash = r->ref_hash;
		id.inputs_key = inputs_key;
		id.seed = r->o->seed;
		id.input_digests = digests;
		id.digest_kind = device ? 'd' : 'h';
		refout_key(&id, pb, key);
		r->refout_keys++;
	}
	free(digests);
	return ok;
}

void engine_refout_keep(struct run *r, const struct case_ctx *c, const struct dev_set *set, void **host_out,
			const char *key, double seconds)
{
	const struct ref_output_cache *kc = r->o->ref_outputs;
	void **fetched = NULL, *blob;
	size_t size;

	if (!refout_worth_keeping(seconds, refout_output_bytes(&c->pb, NULL)))
		return;
	if (!host_out && engine_fetch_outputs(r, set, &c->pb, &fetched)) {
		engine_host_free(fetched, c->pb.nbufs);
		kbx_clear_error();   /* not kept: the reference runs again next time */
		return;
	}
	blob = refout_pack(&c->pb, host_out ? host_out : fetched, &size);
	kc->put(kc->ctx, key, r->t->id, blob, size);
	free(blob);
	engine_host_free(fetched, c->pb.nbufs);
}

/* Kept outputs into c->rs (and c->ref_out for the host's comparison): 1 when they were; 0 with
 * c->rs as it was prepared (*err: the error restoring it) when not. */
static int refout_load(struct run *r, struct case_ctx *c, const char *key, enum kbx_status *err)
{
	const struct ref_output_cache *kc = r->o->ref_outputs;
	void *blob = NULL, **out = NULL;
	size_t size = 0;

	if (kc->get(kc->ctx, key, &blob, &size) != 0)
		return 0;
	if (refout_unpack(&c->pb, blob, size, &out)) {
		engine_log(r, "the reference's kept outputs under %.12s do not fit this row (%s): it runs", key,
			   kbx_last_error());
		kbx_clear_error();
		free(blob);
		return 0;
	}
	free(blob);
	if (engine_upload_outputs(r, &c->rs, &c->pb, out)) {
		/* an output that is also an input may be half written: prepared again */
		engine_host_free(out, c->pb.nbufs);
		kbx_clear_error();
		*err = engine_set_prepare(r, &c->rs, c, &r->ref, 0);
		return 0;
	}
	engine_host_free(c->ref_out, c->pb.nbufs);
	c->ref_out = out;
	return 1;
}

/* The reference once on c's inputs (in c->rs): its outputs fetched unless the GPU compares. */
static enum kbx_status run_reference(struct run *r, struct case_ctx *c, const char *label, double *seconds)
{
	enum kbx_status st;
	char why[1024];
	double t0 = now_seconds();

	st = engine_run_launches(r, &r->ref, &c->rs, &c->pb, 1, label, why, sizeof(why));
	if (st)
		return kbx_error(st, "the reference failed on %s: %s", label, why);
	*seconds = now_seconds() - t0;
	c->ref_kept = 0;
	return c->gpu_cmp ? KBX_OK : engine_fetch_outputs(r, &c->rs, &c->pb, &c->ref_out);
}

enum kbx_status engine_reference_outputs(struct run *r, struct case_ctx *c, const char *inputs_key, const char *label)
{
	enum kbx_status st = KBX_OK;
	char key[65];
	double seconds = 0;
	int keyed = engine_refout_key(r, c, &c->rs, inputs_key, key);

	c->ref_kept = 0;
	if (keyed && refout_load(r, c, key, &st)) {
		c->ref_kept = 1;
		r->refout_kept++;
		return KBX_OK;
	}
	if (!st)
		st = run_reference(r, c, label, &seconds);
	/* kept before the candidate runs on these inputs: what is kept is what the reference gave */
	if (!st && keyed)
		engine_refout_keep(r, c, &c->rs, c->ref_out, key, seconds);
	return st;
}

enum kbx_status engine_reference_live(struct run *r, struct case_ctx *c, const char *label)
{
	enum kbx_status st;
	double seconds;

	r->refout_live++;
	engine_log(r, "%s: the candidate differs from the reference's kept outputs: judged again against the "
		   "reference run live", label);
	engine_host_free(c->ref_out, c->pb.nbufs);
	c->ref_out = NULL;
	st = engine_set_prepare(r, &c->rs, c, &r->ref, 0);
	return st ? st : run_reference(r, c, label, &seconds);
}
