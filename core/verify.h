/*
 * verify.h - property verifiers for outputs that are unique only up to sign, order or phase.
 *
 * Decompositions (eig, svd, qr) are checked by what defines them, not element by element
 * against one reference output (doc/task-format.md "Property verifier"). A task selects one with
 *
 *     verifier = property
 *     [verifier]
 *     property = svd           ; eig | svd | qr
 *     input = A                ; the matrix argument, shape [*, m, n]
 *     u = U                    ; the outputs, by role (see below)
 *     s = S
 *     vh = Vh
 *     tol = 1e-4               ; an expression over the case's bindings
 *
 * Roles: eig: values (c64 [*, n]), vectors (c64 [*, n, n], columns); svd: u ([*, m, m] or
 * [*, m, k]), s ([*, k]), vh ([*, n, n] or [*, k, n]); qr: q ([*, m, m] or [*, m, k]; optional),
 * r ([*, k, n] or [*, m, n]). Every check is relative to the size of A, and each is reported with
 * its measured value so that a failure says which property broke and by how much:
 *
 *   eig   residual max_i |A v_i - l_i v_i| / (|A|_F |v_i|); eigenvalues equal to the reference's as
 *         a set (nearest-match distance / |A|_F); unit-norm eigenvectors
 *   svd   reconstruction |A - U_k S Vh_k|_F / |A|_F; orthonormal columns of U and rows of Vh;
 *         singular values non-negative, descending, equal to the reference's (relative to s_max)
 *   qr    reconstruction |A - QR|_F / |A|_F; orthonormal columns of Q; R upper triangular; R equal
 *         to the reference's up to the sign of each row
 */
#ifndef KBX_VERIFY_H
#define KBX_VERIFY_H

#include "problem.h"
#include "status.h"
#include "task.h"

struct verify_result {
	int pass;
	char message[512];      /* the first property that failed, with its value and the tolerance */
	double worst;           /* the largest measured value relative to tol (pass: <= 1) */
};

/* Check the candidate's outputs. host_in/cand/ref are indexed like p->bufs (NULL where a buffer
 * has no such data). KBX_EINVAL when the task's [verifier] section is inconsistent. */
enum kbx_status verify_property(const struct task *t, const struct problem *p, void *const *host_in,
				void *const *cand, void *const *ref, struct verify_result *out);

/* The index in p->bufs of the buffer that plays `role` in the task's [verifier] section ("input",
 * "q", "vectors", ...), -1 when none does. */
int verify_role_buf(const struct task *t, const struct problem *p, const char *role);

/* A figure computed elsewhere (the engine: on the GPU, where the outputs still are): eig's
 * independence of the eigenvectors of matrix `batch` (which: 0 the candidate's, 1 the
 * reference's; dense_min_pivot's value), 0 with *out set, nonzero to have the host compute it.
 * The value may differ from the host's by rounding: a caller that must report exactly the host's
 * judges again with verify_property where this one fails. */
struct verify_hooks {
	int (*independence)(void *ctx, int which, long long batch, long long n, double *out);
	void *ctx;
};
enum kbx_status verify_property_with(const struct task *t, const struct problem *p, void *const *host_in,
				     void *const *cand, void *const *ref, const struct verify_hooks *hooks,
				     struct verify_result *out);

#endif
