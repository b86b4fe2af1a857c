/*
 * merge.c - copy the runs of another history into this one (kbx db merge).
 *
 * A run is known by its uid (schema 3), not its id: ids restart in every file, uids travel with
 * the run. A source run whose uid is already here is skipped, so merging is idempotent and
 * several workers' histories can be merged in any order. The tables that hang off a run are
 * found in the schema (those with a foreign key to runs) and columns are copied by name, so
 * that tables and columns added by later migrations come along without changes here.
 */
#include "db.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../core/util.h"

#define MERGE_BUSY_TIMEOUT_MS 5000

struct cols {
	char **name;
	int n;
	size_t cap;
};

/* A table that refers to runs: its name, the referring column, what to copy. */
struct child {
	char *table, *fk;
	struct cols cols;
	sqlite3_stmt *read, *write;
};

struct merge {
	struct db *db;
	sqlite3 *dst;
	const char *name;           /* the source as the caller named it */
	char *origin;               /* its absolute path, stored in the runs copied from it */
	sqlite3 *src;               /* read-only connection, or the migrated copy's */
	sqlite3 *ro;                /* the read-only connection, when open */
	struct db *copy;            /* the migrated copy of an older source */
	char *copy_path;
	struct child *child;
	int nchild;
	size_t child_cap;
};

static void cols_free(struct cols *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->name[i]);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

static int cols_has(const struct cols *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcasecmp(c->name[i], name))
			return 1;
	return 0;
}

static void add_ident(struct sbuf *sb, const char *name)
{
	sbuf_adds(sb, "\"");
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			sbuf_adds(sb, "\"\"");
		else
			sbuf_add(sb, p, 1);
	}
	sbuf_adds(sb, "\"");
}

/* ", "a", "b" ...: a column list (with its leading comma when lead) */
static void add_cols(struct sbuf *sb, const struct cols *c, int lead)
{
	for (int i = 0; i < c->n; i++) {
		if (lead || i)
			sbuf_adds(sb, ", ");
		add_ident(sb, c->name[i]);
	}
}

/* ", ?k, ?k+1 ...": placeholders for c, numbered from first */
static void add_params(struct sbuf *sb, const struct cols *c, int first, int lead)
{
	for (int i = 0; i < c->n; i++)
		sbuf_addf(sb, "%s?%d", lead || i ? ", " : "", first + i);
}

static enum kbx_status fail(struct merge *m, sqlite3 *sq, const char *what)
{
	return kbx_error(KBX_EDB, "cannot merge '%s' into history '%s': %s: %s", m->name, db_path(m->db), what,
			 sqlite3_errmsg(sq));
}

/*
 * The columns of `table` in sq, without those in `skip` (a NULL-terminated list) and without a
 * rowid alias (a lone INTEGER PRIMARY KEY: the copy gets a new one). KBX_ENOTFOUND when the
 * table does not exist.
 */
static int table_columns(sqlite3 *sq, const char *table, const char *const *skip, struct cols *out)
{
	sqlite3_stmt *st;
	int rc, npk = 0, rowid_alias = -1, i = 0;
	struct cols all = { 0 };

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(sq, "SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		int pk = sqlite3_column_int(st, 2);

		if (pk)
			npk++;
		if (pk == 1 && type && !strcasecmp(type, "INTEGER"))
			rowid_alias = all.n;
		XGROW(all.name, all.n + 1, all.cap);
		all.name[all.n++] = xstrdup(name ? name : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		cols_free(&all);
		return rc;
	}
	for (i = 0; i < all.n; i++) {
		int keep = !(npk == 1 && i == rowid_alias);

		for (const char *const *s = skip; keep && s && *s; s++)
			if (!strcasecmp(all.name[i], *s))
				keep = 0;
		if (keep) {
			XGROW(out->name, out->n + 1, out->cap);
			out->name[out->n++] = all.name[i];
			all.name[i] = NULL;
		}
	}
	cols_free(&all);
	return SQLITE_OK;
}

/* The columns of `table` in the target that the source has too. */
static int common_columns(struct merge *m, const char *table, const char *const *skip, struct cols *out)
{
	struct cols d, s;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = table_columns(m->dst, table, skip, &d);
	if (rc != SQLITE_OK)
		return rc;
	rc = table_columns(m->src, table, skip, &s);
	if (rc != SQLITE_OK) {
		cols_free(&d);
		return rc;
	}
	for (int i = 0; i < d.n; i++) {
		if (cols_has(&s, d.name[i])) {
			XGROW(out->name, out->n + 1, out->cap);
			out->name[out->n++] = d.name[i];
			d.name[i] = NULL;
		}
	}
	cols_free(&d);
	cols_free(&s);
	return SQLITE_OK;
}

static int has_table(sqlite3 *sq, const char *table, int *has)
{
	sqlite3_stmt *st;
	int rc;

	*has = 0;
	rc = sqlite3_prepare_v2(sq, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	*has = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int user_version(sqlite3 *sq, int *version)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(sq, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* --- the source ---------------------------------------------------------------------------- */

/*
 * Copy the read-only source into a temporary file and open that with db_open, which migrates
 * it: the source itself is never written.
 */
static enum kbx_status migrate_copy(struct merge *m, int version)
{
	const char *tmp = getenv("TMPDIR");
	double deadline = db_now() + MERGE_BUSY_TIMEOUT_MS / 1000.0;
	sqlite3 *dst = NULL;
	sqlite3_backup *bk;
	int fd, rc;

	m->copy_path = xasprintf("%s/kbx-merge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(m->copy_path);
	if (fd < 0) {
		enum kbx_status st = kbx_error(KBX_EIO, "cannot merge '%s': cannot create a temporary copy '%s': %s",
					       m->name, m->copy_path, strerror(errno));

		free(m->copy_path);
		m->copy_path = NULL;
		return st;
	}
	close(fd);
	rc = sqlite3_open_v2(m->copy_path, &dst, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK) {
		bk = sqlite3_backup_init(dst, "main", m->ro, "main");
		if (!bk) {
			rc = sqlite3_errcode(dst);
		} else {
			/* A writer may hold the source for a moment. */
			while ((rc = sqlite3_backup_step(bk, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED) {
				if (db_now() > deadline)
					break;
				sqlite3_sleep(10);
			}
			sqlite3_backup_finish(bk);
			rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
	}
	if (rc != SQLITE_OK) {
		enum kbx_status st = kbx_error(KBX_EDB, "cannot merge '%s': cannot copy it to '%s': %s", m->name,
					       m->copy_path, dst ? sqlite3_errmsg(dst) : sqlite3_errstr(rc));

		sqlite3_close_v2(dst);
		return st;
	}
	sqlite3_close_v2(dst);
	if (db_open(m->copy_path, &m->copy) != KBX_OK)
		return kbx_wrap(KBX_EDB, "cannot merge '%s': cannot migrate a copy of it from schema version %d",
				m->name, version);
	m->src = db_sqlite(m->copy);
	return KBX_OK;
}

static enum kbx_status open_source(struct merge *m, const char *path)
{
	static const char *const tables[] = { "runs", "case_results", "perf_rows", "compile_cache" };
	char abs[PATH_MAX];
	struct stat sb;
	int rc, version = 0;

	if (stat(path, &sb) != 0)
		return kbx_error(errno == ENOENT ? KBX_ENOTFOUND : KBX_EIO, "cannot merge '%s': %s", path,
				 strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return kbx_error(KBX_EINVAL, "cannot merge '%s': not a file", path);
	m->origin = xstrdup(realpath(path, abs) ? abs : path);
	rc = sqlite3_open_v2(path, &m->ro, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK)
		return kbx_error(KBX_EDB, "cannot merge '%s': cannot open it: %s", path,
				 m->ro ? sqlite3_errmsg(m->ro) : sqlite3_errstr(rc));
	sqlite3_extended_result_codes(m->ro, 1);
	sqlite3_busy_timeout(m->ro, MERGE_BUSY_TIMEOUT_MS);
	if (db_register_functions(m->ro) != SQLITE_OK)
		return kbx_error(KBX_EDB, "cannot merge '%s': %s", path, sqlite3_errmsg(m->ro));
	/* Opening is lazy: the first read finds a file that is not SQLite. */
	if (sqlite3_exec(m->ro, "SELECT COUNT(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK)
		return kbx_error(KBX_EINVAL, "cannot merge '%s': not a kbx history (%s)", path,
				 sqlite3_errmsg(m->ro));
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		int has;

		if (has_table(m->ro, tables[i], &has) != SQLITE_OK)
			return kbx_error(KBX_EDB, "cannot merge '%s': cannot read its schema: %s", path,
					 sqlite3_errmsg(m->ro));
		if (!has)
			return kbx_error(KBX_EINVAL, "cannot merge '%s': not a kbx history (no table '%s')", path,
					 tables[i]);
	}
	if (user_version(m->ro, &version) != SQLITE_OK)
		return kbx_error(KBX_EDB, "cannot merge '%s': cannot read its schema version: %s", path,
				 sqlite3_errmsg(m->ro));
	if (version < 1)
		return kbx_error(KBX_EINVAL, "cannot merge '%s': not a kbx history (schema version %d)", path, version);
	if (version > DB_SCHEMA_VERSION)
		return kbx_error(KBX_EDB, "cannot merge '%s': it has schema version %d, newer than this kbx knows (%d):"
				 " upgrade kbx", path, version, DB_SCHEMA_VERSION);
	if (version < DB_SCHEMA_VERSION)
		return migrate_copy(m, version);
	m->src = m->ro;
	return KBX_OK;
}

static void close_source(struct merge *m)
{
	for (int i = 0; i < m->nchild; i++) {
		sqlite3_finalize(m->child[i].read);
		sqlite3_finalize(m->child[i].write);
		free(m->child[i].table);
		free(m->child[i].fk);
		cols_free(&m->child[i].cols);
	}
	free(m->child);
	if (m->src && !sqlite3_get_autocommit(m->src))
		sqlite3_exec(m->src, "ROLLBACK", NULL, NULL, NULL);
	db_close(m->copy);
	sqlite3_close_v2(m->ro);
	if (m->copy_path) {
		char *side;

		unlink(m->copy_path);
		side = xasprintf("%s-wal", m->copy_path);
		unlink(side);
		free(side);
		side = xasprintf("%s-shm", m->copy_path);
		unlink(side);
		free(side);
		free(m->copy_path);
	}
	free(m->origin);
}

/* --- copying ------------------------------------------------------------------------------- */

/* The tables with a foreign key to runs, in the target, with their statements. */
static enum kbx_status find_children(struct merge *m)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(m->dst,
				"SELECT t.name, f.\"from\" FROM sqlite_master AS t, pragma_foreign_key_list(t.name) AS f"
				" WHERE t.type = 'table' AND f.\"table\" = 'runs' AND (f.\"to\" IS NULL OR f.\"to\" = 'id')"
				" ORDER BY t.name, f.id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(m, m->dst, "read the schema");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct child *c;

		XGROW(m->child, m->nchild + 1, m->child_cap);
		c = &m->child[m->nchild++];
		memset(c, 0, sizeof(*c));
		c->table = xstrdup((const char *)sqlite3_column_text(st, 0));
		c->fk = xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(m, m->dst, "read the schema");
	for (int i = 0; i < m->nchild; i++) {
		struct child *c = &m->child[i];
		const char *skip[] = { c->fk, NULL };
		struct sbuf sql = SBUF_INIT;
		int has;

		if (has_table(m->src, c->table, &has) != SQLITE_OK)
			return fail(m, m->src, "read the source's schema");
		if (!has)
			continue;   /* nothing to copy: the statements stay NULL */
		if (common_columns(m, c->table, skip, &c->cols) != SQLITE_OK)
			return fail(m, m->dst, "read the schema");
		sbuf_adds(&sql, "SELECT 0");
		add_cols(&sql, &c->cols, 1);
		sbuf_adds(&sql, " FROM ");
		add_ident(&sql, c->table);
		sbuf_adds(&sql, " WHERE ");
		add_ident(&sql, c->fk);
		sbuf_adds(&sql, " = ?1");
		rc = sqlite3_prepare_v2(m->src, sql.buf, -1, &c->read, NULL);
		sbuf_reset(&sql);
		if (rc != SQLITE_OK) {
			sbuf_release(&sql);
			return fail(m, m->src, "read the source");
		}
		sbuf_adds(&sql, "INSERT INTO ");
		add_ident(&sql, c->table);
		sbuf_adds(&sql, " (");
		add_ident(&sql, c->fk);
		add_cols(&sql, &c->cols, 1);
		sbuf_adds(&sql, ") VALUES (?1");
		add_params(&sql, &c->cols, 2, 1);
		sbuf_adds(&sql, ")");
		rc = sqlite3_prepare_v2(m->dst, sql.buf, -1, &c->write, NULL);
		sbuf_release(&sql);
		if (rc != SQLITE_OK)
			return fail(m, m->dst, "prepare the copy");
	}
	return KBX_OK;
}

/* Copy the rows of every child table that refer to source run old_id, as rows of new_id. */
static int copy_children(struct merge *m, sqlite3_int64 old_id, sqlite3_int64 new_id, sqlite3 **errdb)
{
	for (int i = 0; i < m->nchild; i++) {
		struct child *c = &m->child[i];
		int rc;

		if (!c->read)
			continue;
		sqlite3_bind_int64(c->read, 1, old_id);
		while ((rc = sqlite3_step(c->read)) == SQLITE_ROW) {
			sqlite3_bind_int64(c->write, 1, new_id);
			for (int k = 0; k < c->cols.n; k++)
				sqlite3_bind_value(c->write, 2 + k, sqlite3_column_value(c->read, 1 + k));
			rc = sqlite3_step(c->write);
			sqlite3_reset(c->write);
			sqlite3_clear_bindings(c->write);
			if (rc != SQLITE_DONE) {
				sqlite3_reset(c->read);
				*errdb = m->dst;
				return rc;
			}
		}
		sqlite3_reset(c->read);
		if (rc != SQLITE_DONE) {
			*errdb = m->src;
			return rc;
		}
	}
	return SQLITE_OK;
}

static enum kbx_status copy_runs(struct merge *m, struct db_merge_stats *stats)
{
	static const char *const skip[] = { "uid", "origin", NULL };
	struct sbuf sql = SBUF_INIT;
	sqlite3_stmt *read = NULL, *seen = NULL, *write = NULL;
	struct cols cols;
	sqlite3 *errdb = m->src;
	const char *what = "read the source's runs";
	enum kbx_status st = KBX_OK;
	int rc;

	if (common_columns(m, "runs", skip, &cols) != SQLITE_OK)
		return fail(m, m->dst, "read the schema");
	/* Oldest first, so that run ids here grow with time as they do for runs recorded here. A run
	 * without a uid (only a hand-edited file has one) is known by its content, as the migration
	 * to schema 3 did. */
	sbuf_adds(&sql, "SELECT id, COALESCE(uid, kbx_legacy_uid(id, task_id, category, created_at, verdict, seed,"
		  " source_hash)), origin");
	add_cols(&sql, &cols, 1);
	sbuf_adds(&sql, " FROM runs ORDER BY created_at, id");
	rc = sqlite3_prepare_v2(m->src, sql.buf, -1, &read, NULL);
	sbuf_reset(&sql);
	if (rc == SQLITE_OK) {
		errdb = m->dst;
		what = "prepare the copy";
		rc = sqlite3_prepare_v2(m->dst, "SELECT 1 FROM runs WHERE uid = ?1", -1, &seen, NULL);
	}
	if (rc == SQLITE_OK) {
		sbuf_adds(&sql, "INSERT INTO runs (uid, origin");
		add_cols(&sql, &cols, 1);
		sbuf_adds(&sql, ") VALUES (?1, ?2");
		add_params(&sql, &cols, 3, 1);
		sbuf_adds(&sql, ")");
		rc = sqlite3_prepare_v2(m->dst, sql.buf, -1, &write, NULL);
	}
	sbuf_release(&sql);
	while (rc == SQLITE_OK) {
		sqlite3_int64 old_id, new_id;
		int dup;

		errdb = m->src;
		what = "read the source's runs";
		rc = sqlite3_step(read);
		if (rc == SQLITE_DONE) {
			rc = SQLITE_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		old_id = sqlite3_column_int64(read, 0);
		errdb = m->dst;
		what = "look up a run";
		sqlite3_bind_value(seen, 1, sqlite3_column_value(read, 1));
		rc = sqlite3_step(seen);
		dup = rc == SQLITE_ROW;
		sqlite3_reset(seen);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			break;
		rc = SQLITE_OK;
		if (dup) {
			stats->runs_present++;
			continue;
		}
		what = "insert a run";
		sqlite3_bind_value(write, 1, sqlite3_column_value(read, 1));
		if (sqlite3_column_type(read, 2) == SQLITE_NULL)
			sqlite3_bind_text(write, 2, m->origin, -1, SQLITE_STATIC);
		else
			sqlite3_bind_value(write, 2, sqlite3_column_value(read, 2));
		for (int k = 0; k < cols.n; k++)
			sqlite3_bind_value(write, 3 + k, sqlite3_column_value(read, 3 + k));
		rc = sqlite3_step(write);
		sqlite3_reset(write);
		sqlite3_clear_bindings(write);
		if (rc != SQLITE_DONE)
			break;
		new_id = sqlite3_last_insert_rowid(m->dst);
		what = "copy a run's rows";
		rc = copy_children(m, old_id, new_id, &errdb);
		if (rc == SQLITE_OK)
			stats->runs_merged++;
	}
	if (rc != SQLITE_OK)
		st = fail(m, errdb, what);
	sqlite3_finalize(read);
	sqlite3_finalize(seen);
	sqlite3_finalize(write);
	cols_free(&cols);
	return st;
}

/* Compile cache entries whose key is new here; then the usual bound. */
static enum kbx_status copy_cache(struct merge *m, struct db_merge_stats *stats)
{
	struct sbuf sql = SBUF_INIT;
	sqlite3_stmt *read = NULL, *write = NULL;
	struct cols cols;
	enum kbx_status st = KBX_OK;
	int rc;

	if (common_columns(m, "compile_cache", NULL, &cols) != SQLITE_OK)
		return fail(m, m->dst, "read the schema");
	if (!cols_has(&cols, "key")) {
		cols_free(&cols);
		return kbx_error(KBX_EDB, "cannot merge '%s': its compile cache has no key", m->name);
	}
	sbuf_adds(&sql, "SELECT ");
	add_cols(&sql, &cols, 0);
	sbuf_adds(&sql, " FROM compile_cache ORDER BY created_at");
	rc = sqlite3_prepare_v2(m->src, sql.buf, -1, &read, NULL);
	sbuf_reset(&sql);
	if (rc != SQLITE_OK) {
		st = fail(m, m->src, "read the source's compile cache");
		goto out;
	}
	sbuf_adds(&sql, "INSERT OR IGNORE INTO compile_cache (");
	add_cols(&sql, &cols, 0);
	sbuf_adds(&sql, ") VALUES (");
	add_params(&sql, &cols, 1, 0);
	sbuf_adds(&sql, ")");
	rc = sqlite3_prepare_v2(m->dst, sql.buf, -1, &write, NULL);
	if (rc != SQLITE_OK) {
		st = fail(m, m->dst, "prepare the copy");
		goto out;
	}
	while ((rc = sqlite3_step(read)) == SQLITE_ROW) {
		for (int k = 0; k < cols.n; k++)
			sqlite3_bind_value(write, 1 + k, sqlite3_column_value(read, k));
		rc = sqlite3_step(write);
		sqlite3_reset(write);
		sqlite3_clear_bindings(write);
		if (rc != SQLITE_DONE) {
			st = fail(m, m->dst, "copy the compile cache");
			goto out;
		}
		stats->cache_merged += sqlite3_changes(m->dst) > 0;
	}
	if (rc != SQLITE_DONE) {
		st = fail(m, m->src, "read the source's compile cache");
		goto out;
	}
	if (db_cache_trim(m->db) != SQLITE_OK)
		st = fail(m, m->dst, "trim the compile cache");
out:
	sbuf_release(&sql);
	sqlite3_finalize(read);
	sqlite3_finalize(write);
	cols_free(&cols);
	return st;
}

enum kbx_status db_merge(struct db *db, const char *src_path, struct db_merge_stats *stats)
{
	struct db_merge_stats local;
	struct merge m;
	enum kbx_status st;

	memset(&m, 0, sizeof(m));
	memset(&local, 0, sizeof(local));
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!src_path)
		return kbx_error(KBX_EINVAL, "merge without a source history");
	m.db = db;
	m.dst = db_sqlite(db);
	m.name = src_path;
	st = open_source(&m, src_path);
	/* One snapshot of the source (a worker may still be writing to it) and one transaction
	 * here: after a failure nothing of this source is merged. */
	if (st == KBX_OK && sqlite3_exec(m.src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		st = fail(&m, m.src, "start reading");
	if (st == KBX_OK && sqlite3_exec(m.dst, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		st = fail(&m, m.dst, "start writing");
	if (st == KBX_OK)
		st = find_children(&m);
	if (st == KBX_OK)
		st = copy_runs(&m, &local);
	if (st == KBX_OK)
		st = copy_cache(&m, &local);
	if (st == KBX_OK && sqlite3_exec(m.dst, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		st = fail(&m, m.dst, "commit");
	if (st != KBX_OK && !sqlite3_get_autocommit(m.dst))
		sqlite3_exec(m.dst, "ROLLBACK", NULL, NULL, NULL);
	close_source(&m);
	if (st == KBX_OK && stats)
		*stats = local;
	return st;
}
