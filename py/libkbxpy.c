/*
 * libkbxpy.so: kbx's engine inside the Python worker (core/pyhost.h).
 *
 * python/kbx_worker.py loads this library, hands torch our allocator (kbx_torch_alloc) and
 * calls kbx_py_main with its callbacks. From there on the process is a worker like `kbx
 * worker`: worker_serve reads the requests and writes the events; the engine calls the
 * callbacks through the host_candidate below wherever it would have compiled or launched CUDA.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/gpu.h"
#include "../core/guardalloc.h"
#include "../core/jsonget.h"
#include "../core/pyhost.h"
#include "../core/serve.h"
#include "../core/util.h"
#include "../db/db.h"

#define ANSWER_BYTES (64 * 1024)
#define TORCH_GUARD_BYTES (64 * 1024)

/* Exported: the library's entry points keep default visibility, everything else is static. */
#define KBX_EXPORT __attribute__((visibility("default")))

struct pyhost {
	const struct kbx_py_callbacks *cb;
	char answer[ANSWER_BYTES];
	char *last_log;
};

static struct galloc *torch_heap(void);

/* The answer in h->answer as JSON, or NULL (with a note in *why) when it is not JSON. */
static json_t *answer_json(struct pyhost *h, char *why, size_t whylen)
{
	json_error_t err;
	json_t *o;

	h->answer[ANSWER_BYTES - 1] = '\0';
	o = json_loads(h->answer, 0, &err);
	if (!json_is_object(o)) {
		json_decref(o);
		snprintf(why, whylen, "the Python worker gave an unreadable answer: %s", err.text);
		return NULL;
	}
	return o;
}

/* "log": [lines] (or one string) joined with newlines; NULL when there is none. */
static char *join_log(json_t *o)
{
	json_t *log = json_object_get(o, "log"), *v;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	if (json_is_string(log))
		return xstrdup(json_string_value(log));
	json_array_foreach(log, i, v)
		if (json_is_string(v))
			sbuf_addf(&sb, "%s%s", sb.len ? "\n" : "", json_string_value(v));
	return sb.len ? sbuf_detach(&sb) : (sbuf_release(&sb), NULL);
}

static enum verdict py_load(void *ctx, const struct task *t, const char *source, const char *name, int device,
			    int has_gpu, int allow_pytorch, struct compile_result *cr, char *why, size_t whylen)
{
	struct pyhost *h = ctx;
	json_t *req = json_object(), *ans;
	enum verdict v = V_PASS;
	const char *vs;
	char *text;
	int rc;

	json_object_set_new(req, "source", json_string(source ? source : ""));
	json_object_set_new(req, "source_name", json_string(name));
	json_object_set_new(req, "task", json_string(t->id));
	json_object_set_new(req, "task_dir", json_string(t->dir));
	json_object_set_new(req, "entry", t->py_entry ? json_string(t->py_entry) : json_null());
	json_object_set_new(req, "signature", t->py_signature ? json_string(t->py_signature) : json_null());
	json_object_set_new(req, "device", json_integer(device));
	json_object_set_new(req, "has_gpu", json_boolean(has_gpu));
	if (allow_pytorch)
		json_object_set_new(req, "allow_pytorch", json_true());
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	h->answer[0] = '\0';
	rc = h->cb->load(text, h->answer, ANSWER_BYTES);
	free(text);
	snprintf(cr->arch, sizeof(cr->arch), "python");
	ans = answer_json(h, why, whylen);
	if (!ans) {
		cr->ok = 1;
		return V_ERROR;
	}
	cr->log = join_log(ans);
	if (!rc) {
		cr->ok = 1;
		json_decref(ans);
		return V_PASS;
	}
	vs = jsonget_str_or(ans, "verdict", "error");
	snprintf(why, whylen, "%s", jsonget_str_or(ans, "message", "the Python worker could not load the candidate"));
	if (!strcmp(vs, "compile_error")) {
		cr->ok = 0;
		cr->diags = xrealloc(cr->diags, ((size_t)cr->ndiags + 1) * sizeof(*cr->diags));
		cr->diags[cr->ndiags].line = (int)jsonget_int_or(ans, "line", 0);
		cr->diags[cr->ndiags].col = (int)jsonget_int_or(ans, "col", 0);
		snprintf(cr->diags[cr->ndiags].severity, sizeof(cr->diags[0].severity), "error");
		cr->diags[cr->ndiags].message = xstrdup(why);
		cr->ndiags++;
		v = V_COMPILE_ERROR;
	} else {
		cr->ok = 1;
		if (!strcmp(vs, "abi_error"))
			v = V_ABI_ERROR;
		else if (!strcmp(vs, "not_run"))
			v = V_NOT_RUN;
		else
			v = V_ERROR;
	}
	json_decref(ans);
	return v;
}

static int py_bind(void *ctx, const struct host_binding *b, char *why, size_t whylen)
{
	struct pyhost *h = ctx;
	json_t *o = json_object(), *args = json_array(), *env = json_object(), *ans;
	char *text;
	int i, k, handle;

	for (i = 0; i < b->nbufs; i++) {
		const struct host_buffer *hb = &b->bufs[i];
		json_t *a = json_object(), *shape = json_array();

		for (k = 0; k < hb->ndim; k++)
			json_array_append_new(shape, json_integer(hb->shape[k]));
		json_object_set_new(a, "name", json_string(hb->name));
		json_object_set_new(a, "dir", json_string(hb->dir));
		json_object_set_new(a, "dtype", json_string(hb->dtype));
		json_object_set_new(a, "shape", shape);
		json_object_set_new(a, "ptr", json_integer((json_int_t)hb->ptr));
		json_object_set_new(a, "bytes", json_integer((json_int_t)hb->bytes));
		if (hb->ref_ptr)
			json_object_set_new(a, "ref_ptr", json_integer((json_int_t)hb->ref_ptr));
		json_array_append_new(args, a);
	}
	for (i = 0; i < b->env->n; i++) {
		const struct expr_value *v = &b->env->values[i];

		json_object_set_new(env, b->env->names[i], v->is_float ? json_real(v->f) : json_integer(v->i));
	}
	json_object_set_new(o, "stream", json_integer((json_int_t)b->stream));
	json_object_set_new(o, "args", args);
	json_object_set_new(o, "bindings", env);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	h->answer[0] = '\0';
	handle = h->cb->bind(text, h->answer, ANSWER_BYTES);
	free(text);
	if (handle >= 0)
		return handle;
	ans = answer_json(h, why, whylen);
	if (ans) {
		snprintf(why, whylen, "%s", jsonget_str_or(ans, "message", "the Python worker could not bind the buffers"));
		json_decref(ans);
	}
	return -1;
}

static void py_unbind(void *ctx, int handle)
{
	struct pyhost *h = ctx;

	h->cb->unbind(handle);
}

static enum host_outcome outcome_of(const char *kind)
{
	if (!strcmp(kind, "output") || !strcmp(kind, "guard") || !strcmp(kind, "not_kernel"))
		return HOST_WRONG;
	if (!strcmp(kind, "compile"))
		return HOST_COMPILE;
	if (!strcmp(kind, "skip"))
		return HOST_SKIP;
	return HOST_FAILED;
}

static enum host_outcome py_call(void *ctx, int handle, int checked, char *why, size_t whylen, int *line)
{
	struct pyhost *h = ctx;
	enum host_outcome out;
	json_t *ans;
	int rc;

	free(h->last_log);
	h->last_log = NULL;
	h->answer[0] = '\0';
	/* Poisoning is a memset per allocation: part of checking a call, never of timing one. */
	galloc_poison(torch_heap(), checked);
	rc = h->cb->call(handle, checked ? KBX_PY_CHECKED : KBX_PY_TIMED, h->answer, ANSWER_BYTES);
	if (!rc && !checked)
		return HOST_OK;   /* a timed call: nothing to read */
	ans = answer_json(h, why, whylen);
	if (!ans)
		return HOST_FAILED;
	h->last_log = join_log(ans);
	if (!rc) {
		json_decref(ans);
		return HOST_OK;
	}
	*line = (int)jsonget_int_or(ans, "line", 0);
	snprintf(why, whylen, "%s", jsonget_str_or(ans, "message", "the candidate's call failed"));
	out = outcome_of(jsonget_str_or(ans, "kind", "exception"));
	if (out == HOST_SKIP && json_is_true(json_object_get(ans, "uncalled")))
		out = HOST_UNCALLED;
	json_decref(ans);
	return out;
}

static const char *py_last_log(void *ctx)
{
	return ((struct pyhost *)ctx)->last_log;
}

KBX_EXPORT int kbx_py_main(const struct kbx_py_callbacks *cb)
{
	static struct pyhost h;
	struct host_candidate host = { &h, py_load, py_bind, py_unbind, py_call, py_last_log };
	struct serve_env env;
	const char *tasks = getenv("KBX_TASKS");
	FILE *events;
	int rc, ev_fd;

	if (!cb || cb->abi != KBX_PY_ABI) {
		fprintf(stderr, "libkbxpy: callbacks of ABI %d, expected %d\n", cb ? cb->abi : -1, KBX_PY_ABI);
		return 2;
	}
	h.cb = cb;
	db_serve_env(&env, tasks && *tasks ? tasks : KBX_SRCDIR "/tasks", &host);
	/* The events get a descriptor of their own; whatever else writes to descriptor 1 (a
	 * library, the candidate's C extensions) goes to stderr instead of into the protocol. */
	fflush(stdout);
	ev_fd = dup(1);
	events = ev_fd >= 0 ? fdopen(ev_fd, "w") : NULL;
	if (!events || dup2(2, 1) < 0) {
		fprintf(stderr, "libkbxpy: cannot set up the event stream\n");
		return 2;
	}
	rc = worker_serve(stdin, events, &env);
	fclose(events);
	free(h.last_log);
	h.last_log = NULL;
	return rc;
}

/* ------------------------------------------------------------- allocator ---- */

static int raw_alloc(void *ctx, size_t bytes, uint64_t *out)
{
	(void)ctx;
	if (gpu_raw_alloc(bytes, out)) {
		kbx_clear_error();
		return -1;
	}
	return 0;
}

static void raw_free(void *ctx, uint64_t p)
{
	(void)ctx;
	gpu_raw_free(p);
}

static int raw_fill(void *ctx, uint64_t p, unsigned char v, size_t n, uint64_t stream)
{
	(void)ctx;
	if (gpu_raw_memset8(p, v, n, stream)) {
		kbx_clear_error();
		return -1;
	}
	return 0;
}

static int raw_read(void *ctx, void *dst, uint64_t src, size_t n)
{
	(void)ctx;
	if (gpu_raw_sync_download(dst, src, n)) {
		kbx_clear_error();
		return -1;
	}
	return 0;
}

static struct galloc *torch_heap(void)
{
	static const struct galloc_ops ops = { NULL, raw_alloc, raw_free, raw_fill, raw_read };
	static struct galloc *heap;

	if (!heap)
		heap = galloc_new(&ops, TORCH_GUARD_BYTES);
	return heap;
}

KBX_EXPORT void *kbx_torch_alloc(ssize_t size, int device, void *stream)
{
	(void)device;
	return (void *)(uintptr_t)galloc_alloc(torch_heap(), size > 0 ? (size_t)size : 0, (uint64_t)(uintptr_t)stream);
}

KBX_EXPORT void kbx_torch_free(void *ptr, ssize_t size, int device, void *stream)
{
	(void)size;
	(void)device;
	(void)stream;
	if (ptr)
		galloc_free(torch_heap(), (uint64_t)(uintptr_t)ptr);
}

KBX_EXPORT void kbx_alloc_poison(int on)
{
	galloc_poison(torch_heap(), on);
}

KBX_EXPORT int kbx_alloc_check(char *out, size_t outlen)
{
	return galloc_check(torch_heap(), out, outlen);
}

KBX_EXPORT void kbx_alloc_stats(long long *blocks, long long *bytes)
{
	long long cached;

	galloc_stats(torch_heap(), blocks, bytes, &cached);
}
