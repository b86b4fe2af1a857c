/*
 * devgen.h - the input generators of inputs.h, run on the GPU (perf rows).
 *
 * A perf row's inputs can be tens of gigabytes (Fusion/fused_layer_norm_relu_linear's largest
 * weight is 2^33 floats): drawn on the host, a sweep of the references spent most of its time
 * generating and uploading them. The elementwise generators are counter-based (element j of a
 * buffer is a function of its key and j: tasks/include/kbx/rng.h), so the GPU draws them in
 * place, with the same code: uniform, randint, bool, zeros, ones, full and arange give the host's
 * bits exactly; randn and outlier too, except where CUDA's double log or cos rounds differently
 * from the C library's and the f32 value lands on the other side of a rounding boundary (about
 * one element in 2^28). Perf rows need the distribution, not the host's bits; the correctness
 * cases keep the host generators, whose values `kbx export` writes out.
 *
 * The same kernel also checks a buffer against what it would write (devgen_check): a candidate
 * that modified one of its inputs is found without a copy of a 34 GB input on the host.
 */
#ifndef KBX_DEVGEN_H
#define KBX_DEVGEN_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "gpu.h"
#include "inputs.h"
#include "status.h"

/* The CUDA source of the generator kernel (compiled by the caller with NVRTC, include path
 * tasks/include). */
const char *devgen_source(void);

/* Whether the GPU generator covers g for dtype dt: every generator but values and special. The
 * matrix generators (spd, diagdom, symmetric) take the shape, as gen_fill does: diagdom and
 * symmetric are elementwise; spd draws each matrix's B into a scratch buffer of doubles (at most
 * 256 MiB, or one matrix) and sums B B^T in the host's order, so it gives the host's bits but
 * where B's randn does not (its last bits, above). */
int devgen_supports(const struct gen_spec *g, enum dtype dt);

struct devgen;
/* Load the compiled image; *out is freed with devgen_close. */
enum kbx_status devgen_open(struct gpu *g, const void *image, struct devgen **out);
void devgen_close(struct devgen *d);

/* Fill n elements of dtype dt and this shape at dst, as gen_fill would with this key
 * (asynchronous, but spd, which synchronises to free its scratch). */
enum kbx_status devgen_fill(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr dst, size_t n,
			    const long long *shape, int ndim, uint64_t key);
/* Whether the n elements at buf still hold what devgen_fill wrote (synchronises). */
enum kbx_status devgen_check(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf, size_t n,
			     const long long *shape, int ndim, uint64_t key, int *differs);

#endif
