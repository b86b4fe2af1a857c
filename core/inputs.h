/*
 * inputs.h - input generators (doc/task-format.md "Generators").
 *
 * Every element is a pure function of (key, element index) through the Philox generator of
 * tasks/include/kbx/rng.h, so inputs regenerate identically anywhere. The key comes from
 * (seed, task id, case name, arg name).
 *
 * Element j's draw is kbx_draw4(key, j) = words (x, y, z, w); u1 = (x:y) >> 11 and
 * u2 = (z:w) >> 11 are 53-bit uniforms in [0, 1) (u1 is kbx_uniform_f64(key, j)).
 *   randn           sqrt(-2 ln(1 - u1)) * cos(2 pi u2)
 *   uniform(lo, hi) lo + (hi - lo) u1, lowered to the dtype's largest value below hi if
 *                   rounding reached hi
 *   outlier(p, s)   randn, times s when kbx_uniform_f64(kbx_subseed(key, 1), j) < p
 *   randint(lo, hi) lo + floor(u1 (hi - lo));  bool(p): u1 < p
 *   values, full, zeros, ones, arange: no draw (values cycle by j)
 *   special         even j: NaN, +Inf, -Inf, +0, -0, +-smallest denormal, +-largest finite,
 *                   +-smallest normal, 1, -1 of the dtype, cycling; odd j: randn
 *   spd(d)          per trailing [n, n] matrix b: B = randn at indices b n^2 + r n + c,
 *                   A = B B^T / n + d I in double (each entry summed in k order)
 *   diagdom(d)      randn + d n on the diagonal (element by element, any size)
 *   symmetric(lo, hi) per trailing [n, n] matrix b: entry (r, c) is uniform(lo, hi) drawn at
 *                   index b n^2 + min(r, c) n + max(r, c), so A = A^T (element by element)
 *   GEN * k         randn or outlier(p, s) times the number k ("randn * -0.01"): the scaled and
 *                   negated variants of core/derive.h; other generators have a bounded domain
 * Values are drawn in double and stored with dtype_set.
 */
#ifndef KBX_INPUTS_H
#define KBX_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

struct expr_env;

enum gen_kind {
	GEN_RANDN, GEN_UNIFORM, GEN_OUTLIER, GEN_RANDINT, GEN_BOOL, GEN_VALUES, GEN_ZEROS,
	GEN_ONES, GEN_FULL, GEN_ARANGE, GEN_SPECIAL, GEN_SPD, GEN_DIAGDOM, GEN_SYMMETRIC
};

struct gen_spec {
	enum gen_kind kind;
	double a, b;            /* parameters (lo/hi, p/scale, start/step, value, d) */
	double *values;         /* GEN_VALUES */
	int nvalues;
	double scale;           /* "GEN * k": k (randn and outlier only); 0 = not scaled */
};

/* Parse "uniform(0, 1)" etc. Errors quote the text and say what was expected. */
enum kbx_status gen_parse(const char *text, struct gen_spec *out);
void gen_spec_free(struct gen_spec *g);

/* As gen_parse, but each argument may be an expression over env ("randint(0, n)"); env may be
 * NULL. problem.c uses it so that the generator text it hands on has only numbers in it. */
enum kbx_status gen_parse_env(const char *text, const struct expr_env *env, struct gen_spec *out);
/* Canonical text of g, every argument spelled out ("uniform(0, 1)", "values(nan, -0, 1.5)"):
 * gen_parse reads it back to the same spec, bit for bit. Caller frees. */
char *gen_format(const struct gen_spec *g);
/* Whether g can fill a buffer of dtype dt and this shape: special, spd, diagdom and symmetric
 * need a float dtype (spd, diagdom and symmetric a real one and square trailing dimensions), NaN and infinities
 * need a float dtype. */
enum kbx_status gen_check(const struct gen_spec *g, enum dtype dt, const long long *shape, int ndim);

uint64_t gen_key(uint64_t seed, const char *task_id, const char *case_name, const char *arg);

/* The largest value of float dtype dt below hi: what uniform(a, hi) stores where rounding to
 * dt would reach hi itself (devgen.c draws the same way). */
double gen_largest_below(enum dtype dt, double hi);

/* For spd, diagdom and symmetric: *m is the trailing square matrices' size, after checking that
 * shape has exactly n elements (and, for spd, that one matrix has at most 2^28 entries); 0 for
 * the other generators. gen_fill and devgen.c both draw through it. */
enum kbx_status gen_matrix_size(const struct gen_spec *g, size_t n, const long long *shape, int ndim, uint64_t *m);

/* Fill n elements of dtype dt at host memory dst. shape/ndim matter for spd, diagdom and symmetric
 * (per trailing square matrix, n must be the product of shape); they are ignored by the
 * elementwise generators. A c64 buffer is filled as 2n floats (real, imaginary, ...): element
 * i's component c draws at index 2i + c. Large buffers are filled by several threads; the
 * values do not depend on how many. */
enum kbx_status gen_fill(const struct gen_spec *g, enum dtype dt, void *dst, size_t n,
			 const long long *shape, int ndim, uint64_t key);

#endif
