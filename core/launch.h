/*
 * launch.h - the `// @kbx` lines of a kernel source: launches and scratch buffers.
 *
 *     // @kbx launch NAME<<<GRID, BLOCK[, SMEM]>>>(ARG, ...) [cooperative]
 *     // @kbx scratch NAME DTYPE [SHAPE, ...]
 *
 * GRID and BLOCK are an expression or dim3(x[, y[, z]]); missing dims are "1". ARG is a name
 * (task arg or scratch) or a cast of an expression: i32(e), i64(e), f32(e), f64(e).
 * Expressions are kept as text and evaluated per case (expr.h). Parsing uses PCRE2; an error
 * returns KBX_EPARSE with "'PATH' line L column C: what was expected".
 * A source without any launch line is an error that says so.
 */
#ifndef KBX_LAUNCH_H
#define KBX_LAUNCH_H

#include "dtype.h"
#include "status.h"

struct launch_arg {
	char *name;       /* the name, or NULL for a cast */
	enum dtype cast;  /* for a cast: DT_I32, DT_I64, DT_F32 or DT_F64 */
	char *expr;       /* for a cast: the expression */
	int col;          /* 1-based column in the source line */
};

struct launch {
	char *kernel;
	char *grid[3];
	char *block[3];
	char *smem;       /* "0" when absent */
	struct launch_arg *args;
	int nargs;
	int cooperative;
	int line;         /* 1-based */
};

struct scratch_decl {
	char *name;
	enum dtype dtype;
	char **shape;     /* expressions */
	int ndim;
	int line;
};

struct kernel_spec {
	struct launch *launches;
	int nlaunches;
	struct scratch_decl *scratch;
	int nscratch;
};

enum kbx_status launch_parse_source(const char *src, const char *path, struct kernel_spec *out);
void kernel_spec_free(struct kernel_spec *spec);

#endif
