/*
 * derive.h - cases kbx adds to a task's own: scaled, negated and boundary-shape variants of one
 * of its cases, and random draws for `kbx run --fuzz N`.
 *
 * A kernel that passes a task's cases can still be specialised to them: a tail handled only for
 * the sizes tested, a constant folded from the test's value range. Derived cases come from the
 * task's contract, not from its authors' foresight:
 *
 *   values   every in/inout float buffer drawn from randn or outlier (whose domain is the whole
 *            real line, so any scaling stays inside the task's contract) is drawn scaled by 3,
 *            by 0.01 and by -1. Bounded generators (uniform, randint, spd, values...) describe a
 *            domain and are left alone. `[derive] values = off: REASON` turns this off.
 *   sizes    each free size variable takes boundary values in turn: 1, primes, non-multiples of
 *            32 and 128, one past powers of two, up to max(4 x the largest value in the task's
 *            cases, 4097), so that every free size passes 1,024 and 4,096 (a block of 1,024
 *            threads, a tile of 4,096 elements) unless `[derive] limit = N` stops it. A case's
 *            value is its binding evaluated (`512 * 512`, `pow2(22) + 3`, `n * s` count as
 *            what they come to). Free are the names listed in `[derive] sizes = n, m` or,
 *            without that key, the one name the buffer shapes use when they use exactly one (a
 *            1-D task); `sizes = none` turns this off. Only the task knows which sizes may vary alone.
 *
 * Both start from one base case: the first case that binds every free size to an integer and
 * draws the most scalable inputs. Tasks with the distribution verifier get no derived cases.
 *
 * A derived case is named by its recipe, so that its name is enough to rebuild it (and its
 * inputs, which are keyed by the name): "auto:scale=3", "auto:n=97", "fuzz:n=37,scale=-0.251".
 */
#ifndef KBX_DERIVE_H
#define KBX_DERIVE_H

#include "status.h"
#include "task.h"

/* The automatic cases of t (none is not an error). Free with derive_cases_free. */
enum kbx_status derive_auto(const struct task *t, struct task_case **out, int *n);
/* Fuzz case `index` of a run with this seed: every free size log-uniform in [1, cap], the
 * scalable inputs scaled by +-10^u, u uniform in [-2, 1]. KBX_EINVAL when there is nothing to
 * vary. */
enum kbx_status derive_fuzz(const struct task *t, unsigned long long seed, int index, struct task_case *out);
/* Rebuild a derived case from its name. KBX_ENOTFOUND when the name is not a recipe. */
enum kbx_status derive_case(const struct task *t, const char *name, struct task_case *out);
/* Whether name is spelled like a recipe ("auto:..." or "fuzz:..."). */
int derive_is_name(const char *name);
/* Smaller variants of a failing recipe, most reduced first: each size to 1, halved and one less;
 * the scale to +-1 and then to none. *n may be 0 (nothing smaller). Caller frees with
 * derive_names_free. */
enum kbx_status derive_shrink(const struct task *t, const char *name, char ***out, int *n);
void derive_names_free(char **names, int n);

void derive_case_free(struct task_case *c);
void derive_cases_free(struct task_case *c, int n);

#endif
