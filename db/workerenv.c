/*
 * The history's part in a worker (core/serve.h): its compile cache and the stored calibration.
 * `kbx worker` and the Python worker (py/) both use it.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/serve.h"
#include "db.h"

static int cache_get(void *ctx, const char *key, void **image, size_t *size, char **log)
{
	return db_cache_get(ctx, key, image, size, log) == KBX_OK ? 0 : -1;
}

static void cache_put(void *ctx, const char *key, const char *arch, const char *options, const void *image,
		      size_t size, const char *log)
{
	db_cache_put(ctx, key, arch, options, image, size, log);
}

struct compile_cache db_compile_cache(struct db *db)
{
	struct compile_cache c = { db, cache_get, cache_put };

	return c;
}

static int open_cache(void *ctx, const char *db_path, struct compile_cache *out)
{
	struct db *db = NULL;

	(void)ctx;
	if (db_open(db_path, &db) != KBX_OK) {
		kbx_clear_error();
		return -1;
	}
	*out = db_compile_cache(db);
	return 0;
}

static void close_cache(void *ctx, struct compile_cache *c)
{
	(void)ctx;
	db_close(c->ctx);
	c->ctx = NULL;
}

static int reftime_get(void *ctx, const char *key, struct ref_timing *out)
{
	if (db_reftime_get(ctx, key, out) == KBX_OK)
		return 0;
	kbx_clear_error();
	return -1;
}

static void reftime_put(void *ctx, const char *key, const char *task_id, const char *gpu_name, int row,
			const struct ref_timing *t)
{
	if (db_reftime_put(ctx, key, task_id, gpu_name, row, t) != KBX_OK)
		kbx_clear_error();   /* a timing not kept is timed again next time */
}

/* The history open_cache opened keeps the reference's timings too. */
static void ref_timings(void *ctx, const struct compile_cache *opened, struct ref_timing_cache *out)
{
	(void)ctx;
	out->ctx = opened->ctx;
	out->get = reftime_get;
	out->put = reftime_put;
}

static int refout_get(void *ctx, const char *key, void **blob, size_t *size)
{
	if (db_refout_get(ctx, key, blob, size) == KBX_OK)
		return 0;
	kbx_clear_error();
	return -1;
}

static void refout_put(void *ctx, const char *key, const char *task_id, const void *blob, size_t size)
{
	if (db_refout_put(ctx, key, task_id, blob, size) != KBX_OK)
		kbx_clear_error();   /* outputs not kept are computed again next time */
}

/* ... and the reference's outputs at perf rows. */
static void ref_outputs(void *ctx, const struct compile_cache *opened, struct ref_output_cache *out)
{
	(void)ctx;
	out->ctx = opened->ctx;
	out->get = refout_get;
	out->put = refout_put;
}

static int find_calibration(void *ctx, const char *db_path, const struct gpu_info *info, struct calibration *out)
{
	(void)ctx;
	return db_calibration_find_at(db_path, info->uuid, info->name, out) == KBX_OK ? 0 : -1;
}

void db_serve_env(struct serve_env *env, const char *tasks_root, const struct host_candidate *host)
{
	memset(env, 0, sizeof(*env));
	env->tasks_root = tasks_root;
	env->host = host;
	env->open_cache = open_cache;
	env->close_cache = close_cache;
	env->find_calibration = find_calibration;
	env->ref_timings = ref_timings;
	env->ref_outputs = ref_outputs;
}
