/*
 * launch.h - the `// @kbx` lines of a kernel source: launches and scratch buffers.
 *
 *     // @kbx launch NAME<<<GRID, BLOCK[, SMEM]>>>(ARG, ...) [cooperative] [untimed]
 *     // @kbx scratch NAME DTYPE [SHAPE, ...]
 *
 * GRID and BLOCK are an expression or dim3(x[, y[, z]]); missing dims are "1". ARG is a name
 * (task arg or scratch) or a cast of an expression: i32(e), i64(e), f32(e), f64(e).
 * Expressions are kept as text and evaluated per case (expr.h); their syntax is checked here
 * (expr_check), so a typo is reported on its line. `cooperative` launches with
 * cuLaunchCooperativeKernel; `untimed` runs in checked calls only, never in a timed one (for a
 * task's reference alone: a result an output may also be judged against, [tolerance] exact).
 * Parsing uses PCRE2; an error returns KBX_EPARSE with "'PATH' line L column C: what was expected" (columns 1-based, in bytes).
 * A directive line is one whose first non-blank characters are `//`, optional blanks, `@kbx`.
 * `// @kbx expect ...` (the verdict line of an example candidate) is accepted and ignored; any other
 * word after `@kbx` is an error naming it. A scratch name declared twice is an error.
 * A source without any launch line is an error that says so. On error *out is left empty.
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
	int expr_col;     /* for a cast: 1-based column where expr starts (add expr_eval's
			   * 0-based err_col to point at an error inside it) */
};

struct launch {
	char *kernel;
	char *grid[3];
	char *block[3];
	char *smem;       /* "0" when absent */
	struct launch_arg *args;
	int nargs;
	int cooperative;
	int untimed;      /* checked calls only (a reference's check buffer); refused in a candidate */
	int line;         /* 1-based */
};

struct scratch_decl {
	char *name;
	enum dtype dtype;
	char **shape;     /* expressions */
	int ndim;
	int pack_bits;    /* `packs s4`: the buffer holds packed integers of this many bits, low bits
			   * first (a little-endian bit stream, whatever its dtype); 0: not packed */
	int pack_signed;  /* 1 for sN (two's complement), 0 for uN */
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
