#include "refout.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "problem.h"
#include "task.h"
#include "util.h"

#define MAGIC "kbxrout1"   /* 8 bytes, then the number of outputs (8 bytes) and each size */

void refout_key(const struct refout_id *id, const struct problem *pb, char out[65])
{
	struct sbuf sb = SBUF_INIT;
	int i;

	/* one field per line, each named: no two ids give the same text */
	sbuf_addf(&sb, "refout 1\nkbx %s\ngpu %s\ncc %d.%d\nsms %d\ntask %s\nref %s\ninputs %s\nseed %llu\nsize %s\n",
		  id->kbx_version ? id->kbx_version : "", id->gpu_name ? id->gpu_name : "", id->cc_major,
		  id->cc_minor, id->sms, id->task_id ? id->task_id : "", id->ref_image_hash ? id->ref_image_hash : "",
		  id->inputs_key ? id->inputs_key : "", id->seed, pb->input_size ? pb->input_size : "null");
	for (i = 0; i < pb->env.n; i++) {
		const struct expr_value *v = &pb->env.values[i];

		if (v->is_float)
			sbuf_addf(&sb, "bind %s %a\n", pb->env.names[i], v->f);
		else
			sbuf_addf(&sb, "bind %s %lld\n", pb->env.names[i], v->i);
	}
	for (i = 0; i < pb->nbufs; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		sbuf_addf(&sb, "buf %s %s %s %zu", b->arg->name, arg_dir_name(b->arg->dir), dtype_name(b->arg->dtype),
			  b->bytes);
		if (b->arg->dir != ARG_OUT)
			sbuf_addf(&sb, " %c%016llx", id->digest_kind,
				  (unsigned long long)(id->input_digests ? id->input_digests[i] : 0));
		sbuf_adds(&sb, "\n");
	}
	sha256_hex(sb.buf, sb.len, out);
	sbuf_release(&sb);
}

int refout_worth_keeping(double launch_s, size_t bytes)
{
	return bytes <= REFOUT_MAX_BYTES && launch_s >= REFOUT_MIN_LAUNCH_S &&
	       launch_s >= 2.0 * (double)bytes / REFOUT_LOAD_BYTES_PER_S;
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static int is_output(const struct problem_buf *b)
{
	return b->arg->dir != ARG_IN;
}

size_t refout_output_bytes(const struct problem *pb, size_t *count)
{
	size_t n = 0, bytes = 0;

	for (int i = 0; i < pb->nbufs; i++)
		if (is_output(&pb->bufs[i])) {
			n++;
			bytes += pb->bufs[i].bytes;
		}
	if (count)
		*count = n;
	return bytes;
}

/* A blob: the magic, the number of outputs, each output's size, then their bytes in order. */
void *refout_pack(const struct problem *pb, void *const *out, size_t *size)
{
	size_t n, total = refout_output_bytes(pb, &n), at = 16 + 8 * n, k = 0;
	unsigned char *blob = xmalloc(at + total);

	memcpy(blob, MAGIC, 8);
	put_u64(blob + 8, n);
	for (int i = 0; i < pb->nbufs; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (!is_output(b))
			continue;
		put_u64(blob + 16 + 8 * k++, b->bytes);
		if (b->bytes)
			memcpy(blob + at, out[i], b->bytes);
		at += b->bytes;
	}
	*size = at;
	return blob;
}

enum kbx_status refout_unpack(const struct problem *pb, const void *blob, size_t size, void ***out)
{
	const unsigned char *p = blob;
	size_t n, at, k = 0;
	void **h;
	int i;

	refout_output_bytes(pb, &n);
	if (!p || size < 16 || memcmp(p, MAGIC, 8) || get_u64(p + 8) != n || (size - 16) / 8 < n)
		return kbx_error(KBX_EINVAL, "kept reference outputs: not a blob of %zu outputs", n);
	at = 16 + 8 * n;
	for (i = 0; i < pb->nbufs; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (!is_output(b))
			continue;
		if (get_u64(p + 16 + 8 * k++) != b->bytes || size - at < b->bytes)
			return kbx_error(KBX_EINVAL, "kept reference outputs: output '%s' is not %zu bytes",
					 b->arg->name, b->bytes);
		at += b->bytes;
	}
	if (at != size)
		return kbx_error(KBX_EINVAL, "kept reference outputs: %zu bytes left over", size - at);
	h = xcalloc((size_t)pb->nbufs + 1, sizeof(*h));
	at = 16 + 8 * n;
	for (i = 0; i < pb->nbufs; i++) {
		const struct problem_buf *b = &pb->bufs[i];

		if (!is_output(b))
			continue;
		h[i] = xmalloc(b->bytes ? b->bytes : 1);
		memcpy(h[i], p + at, b->bytes);
		at += b->bytes;
	}
	*out = h;
	return KBX_OK;
}
