/*
 * The comparison on the GPU: see gpucompare.h. The kernel's source is cmp_core.h's text (the
 * per-element rules, as compare.c runs them) followed by kernel_body below; the host emulation
 * instantiates the same thread walk from the same header and reduces a block in the kernel's
 * order.
 */
#include "gpucompare.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "util.h"

extern const char cmp_core_text[];       /* core/cmp_core_src.c, generated from cmp_core.h */

/*
 * One block: its threads walk the block's chunk interleaved (thread t takes elements lo + t,
 * lo + t + T, ...: coalesced reads), each with its own cmp_state; then the block reduces them:
 * counts and maxima in any order, the sums by a tree in shared memory (the order the emulation
 * repeats), the worst list by 16 rounds of picking the worst head among the threads' sorted
 * lists. The tile map goes to shared memory and then to one global map by atomicMax on the
 * bits (scores are >= 0, so their float bits order as unsigned integers).
 */
static const char kernel_body[] =
	"typedef unsigned int cmp_tile_t;\n"
	"#define CMP_TILE_MAX(t, i, v) atomicMax(&(t)[i], __float_as_uint(v))\n"
	"CMP_THREAD_WALK(gc_f32, float, 1, CMP_VISIT_F32)\n"
	"CMP_THREAD_WALK(gc_f64, double, 1, CMP_VISIT_F64)\n"
	"CMP_THREAD_WALK(gc_f16, unsigned short, 1, CMP_VISIT_F16)\n"
	"CMP_THREAD_WALK(gc_bf16, unsigned short, 1, CMP_VISIT_BF16)\n"
	"CMP_THREAD_WALK(gc_c64, float, 2, CMP_VISIT_F32)\n"
	"CMP_THREAD_WALK(gc_i8, signed char, 1, CMP_VISIT_INT)\n"
	"CMP_THREAD_WALK(gc_u8, unsigned char, 1, CMP_VISIT_INT)\n"
	"CMP_THREAD_WALK(gc_i16, short, 1, CMP_VISIT_INT)\n"
	"CMP_THREAD_WALK(gc_i32, int, 1, CMP_VISIT_INT)\n"
	"CMP_THREAD_WALK(gc_i64, long long, 1, CMP_VISIT_INT)\n"
	"\n"
	"#define GC_SUM(F) \\\n"
	"	dred[t] = st.F; \\\n"
	"	__syncthreads(); \\\n"
	"	for (k = GC_T / 2; k > 0; k >>= 1) { \\\n"
	"		if (t < k) \\\n"
	"			dred[t] = __dadd_rn(dred[t], dred[t + k]); \\\n"
	"		__syncthreads(); \\\n"
	"	} \\\n"
	"	if (t == 0) \\\n"
	"		rec->F = dred[0]; \\\n"
	"	__syncthreads();\n"
	"#define GC_MAX(F) \\\n"
	"	dred[t] = st.F; \\\n"
	"	__syncthreads(); \\\n"
	"	for (k = GC_T / 2; k > 0; k >>= 1) { \\\n"
	"		if (t < k && dred[t + k] > dred[t]) \\\n"
	"			dred[t] = dred[t + k]; \\\n"
	"		__syncthreads(); \\\n"
	"	} \\\n"
	"	if (t == 0) \\\n"
	"		rec->F = dred[0]; \\\n"
	"	__syncthreads();\n"
	"#define GC_COUNT(F) \\\n"
	"	ured[t] = st.F; \\\n"
	"	__syncthreads(); \\\n"
	"	for (k = GC_T / 2; k > 0; k >>= 1) { \\\n"
	"		if (t < k) \\\n"
	"			ured[t] += ured[t + k]; \\\n"
	"		__syncthreads(); \\\n"
	"	} \\\n"
	"	if (t == 0) \\\n"
	"		rec->F = ured[0]; \\\n"
	"	__syncthreads();\n"
	"\n"
	"extern \"C\" __global__ void __launch_bounds__(GC_T)\n"
	"kbx_gpucompare(const unsigned char *cand, const unsigned char *ref, int dt, unsigned long long n, long long h,\n"
	"	       long long w, long long tile_h, long long tile_w, long long tile_cols, double rtol, double atol,\n"
	"	       unsigned long long per, struct cmp_state *records, unsigned int *tiles)\n"
	"{\n"
	"	__shared__ unsigned int stile[CMPC_TILES * CMPC_TILES];\n"
	"	__shared__ double dred[GC_T];\n"
	"	__shared__ double habs[GC_T];\n"
	"	__shared__ unsigned long long ured[GC_T];\n"
	"	__shared__ int hcls[GC_T];\n"
	"	__shared__ int win[GC_T];\n"
	"	struct cmp_state st = {};\n"
	"	struct cmp_state *rec = records + blockIdx.x;\n"
	"	struct cmp_geom g;\n"
	"	unsigned long long lo = blockIdx.x * per, hi = lo + per < n ? lo + per : n, e = lo + threadIdx.x;\n"
	"	int t = threadIdx.x, i, k, head = 0, nw;\n"
	"\n"
	"	g.n = n;\n"
	"	g.rows = n / (unsigned long long)w;\n"
	"	g.h = h;\n"
	"	g.w = w;\n"
	"	g.tile_h = tile_h;\n"
	"	g.tile_w = tile_w;\n"
	"	g.tile_cols = tile_cols;\n"
	"	st.rtol = rtol;\n"
	"	st.atol = atol;\n"
	"	for (i = t; i < CMPC_TILES * CMPC_TILES; i += GC_T)\n"
	"		stile[i] = 0;\n"
	"	__syncthreads();\n"
	"	switch (dt) {\n"
	"	case KBX_DT_F32: gc_f32(&st, (const float *)cand, (const float *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_F64: gc_f64(&st, (const double *)cand, (const double *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_F16: gc_f16(&st, (const unsigned short *)cand, (const unsigned short *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_BF16: gc_bf16(&st, (const unsigned short *)cand, (const unsigned short *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_C64: gc_c64(&st, (const float *)cand, (const float *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_I8: gc_i8(&st, (const signed char *)cand, (const signed char *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_U8:\n"
	"	case KBX_DT_BOOL: gc_u8(&st, cand, ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_I16: gc_i16(&st, (const short *)cand, (const short *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_I32: gc_i32(&st, (const int *)cand, (const int *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	case KBX_DT_I64: gc_i64(&st, (const long long *)cand, (const long long *)ref, &g, e, hi, GC_T, stile); break;\n"
	"	}\n"
	"	cmp_flush_block(&st);\n"
	"	__syncthreads();\n"
	"	for (i = t; i < CMPC_TILES * CMPC_TILES; i += GC_T)\n"
	"		if (stile[i])\n"
	"			atomicMax(&tiles[i], stile[i]);\n"
	"	GC_SUM(dot) GC_SUM(cc) GC_SUM(rr) GC_SUM(l1n) GC_SUM(l1d) GC_SUM(se)\n"
	"	GC_MAX(max_abs) GC_MAX(max_rel) GC_MAX(max_ulp)\n"
	"	GC_COUNT(mm) GC_COUNT(nan_mm) GC_COUNT(inf_mm) GC_COUNT(cand_nf) GC_COUNT(ref_nf) GC_COUNT(nfinite)\n"
	"	for (i = 0; i < CMPC_HIST; i++) {\n"
	"		GC_COUNT(hist[i])\n"
	"	}\n"
	"	for (nw = 0; nw < CMPC_WORST; nw++) {\n"
	"		int have = head < st.nworst, best;\n"
	"\n"
	"		hcls[t] = have ? st.worst[head].cls : 0;\n"
	"		dred[t] = have ? st.worst[head].score : 0;\n"
	"		habs[t] = have ? st.worst[head].abs_err : 0;\n"
	"		ured[t] = have ? st.worst[head].idx * 2 + (unsigned long long)st.worst[head].comp : 0;\n"
	"		win[t] = t;\n"
	"		__syncthreads();\n"
	"		for (k = GC_T / 2; k > 0; k >>= 1) {\n"
	"			if (t < k) {\n"
	"				int a = win[t], b = win[t + k];\n"
	"\n"
	"				if (cmp_key_worse(hcls[b], dred[b], habs[b], ured[b], hcls[a], dred[a], habs[a], ured[a]))\n"
	"					win[t] = b;\n"
	"			}\n"
	"			__syncthreads();\n"
	"		}\n"
	"		best = win[0];\n"
	"		if (hcls[best] == 0)\n"
	"			break;\n"
	"		if (t == best)\n"
	"			rec->worst[nw] = st.worst[head++];\n"
	"		__syncthreads();\n"
	"	}\n"
	"	if (t == 0) {\n"
	"		rec->rtol = rtol;\n"
	"		rec->atol = atol;\n"
	"		rec->b_dot = rec->b_cc = rec->b_rr = rec->b_l1n = rec->b_l1d = rec->b_se = 0;\n"
	"		rec->b_n = 0;\n"
	"		rec->nworst = nw;\n"
	"		rec->worst_floor = nw == CMPC_WORST ? rec->worst[CMPC_WORST - 1].score : 0;\n"
	"	}\n"
	"}\n"
	"\n"
	"/* gpucompare_digest: word j (little-endian, the last one zero-padded) adds\n"
	" * mix(w ^ mix(j ^ salt)) to *out, modulo 2^64, so any grid gives the same sum. */\n"
	"static __device__ __forceinline__ unsigned long long gd_mix(unsigned long long z)\n"
	"{\n"
	"	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
	"	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
	"	return z ^ (z >> 31);\n"
	"}\n"
	"\n"
	"extern \"C\" __global__ void __launch_bounds__(GC_T)\n"
	"kbx_gpudigest(const unsigned char *p, unsigned long long n, unsigned long long salt, unsigned long long *out)\n"
	"{\n"
	"	unsigned long long words = (n + 7) / 8, full = n / 8, acc = 0, j;\n"
	"	int aligned = ((unsigned long long)p & 7) == 0, o;\n"
	"\n"
	"	for (j = (unsigned long long)blockIdx.x * GC_T + threadIdx.x; j < words; j += (unsigned long long)gridDim.x * GC_T) {\n"
	"		unsigned long long w = 0;\n"
	"\n"
	"		if (j < full && aligned)\n"
	"			w = ((const unsigned long long *)p)[j];\n"
	"		else\n"
	"			for (o = 0; o < 8 && j * 8 + o < n; o++)\n"
	"				w |= (unsigned long long)p[j * 8 + o] << (8 * o);\n"
	"		acc += gd_mix(w ^ gd_mix(j ^ salt));\n"
	"	}\n"
	"	for (o = 16; o > 0; o >>= 1)\n"
	"		acc += __shfl_down_sync(0xffffffffu, acc, o);\n"
	"	if ((threadIdx.x & 31) == 0 && acc)\n"
	"		atomicAdd(out, acc);\n"
	"}\n";

static pthread_once_t source_once = PTHREAD_ONCE_INIT;
static char *source;

/* The host's enum values, so that the kernel's switch cases are the host's numbers. */
static void build_source(void)
{
	char defs[512];

	dtype_cuda_defines(defs, sizeof(defs));
	source = xasprintf("%s#define GC_T %d\n%s\n%s", defs, GPUCOMPARE_THREADS, cmp_core_text, kernel_body);
}

const char *gpucompare_source(void)
{
	pthread_once(&source_once, build_source);
	return source;
}

void gpucompare_plan(unsigned long long n, unsigned long long *per_block, unsigned *blocks)
{
	const unsigned long long t = GPUCOMPARE_THREADS;
	unsigned long long per = (n + GPUCOMPARE_MAX_BLOCKS - 1) / GPUCOMPARE_MAX_BLOCKS;

	/* at least 16 elements a thread; a multiple of the block size */
	if (per < 16 * t)
		per = 16 * t;
	per = (per + t - 1) / t * t;
	*per_block = per;
	*blocks = (unsigned)((n + per - 1) / per);
}

/* The argument checks of gpucompare_buffers and gpucompare_emulate; *bytes is one buffer's size. */
static enum kbx_status check_args(enum dtype dt, int have_cand, int have_ref, const long long *shape, int ndim,
				  size_t *bytes)
{
	unsigned long long n = 1;
	size_t esize;
	int i;

	if ((int)dt < 0 || dt >= DT_COUNT)
		return kbx_error(KBX_EINVAL, "cannot compare on the GPU: unknown dtype %d", (int)dt);
	if (ndim < 0 || ndim > GPUCOMPARE_MAX_NDIM)
		return kbx_error(KBX_EINVAL, "cannot compare on the GPU: %d dims (0 to %d)", ndim, GPUCOMPARE_MAX_NDIM);
	if (ndim > 0 && !shape)
		return kbx_error(KBX_EINVAL, "cannot compare on the GPU: no shape for %d dims", ndim);
	for (i = 0; i < ndim; i++)
		if (shape[i] < 0)
			return kbx_error(KBX_EINVAL, "cannot compare on the GPU: dim %d is %lld", i, shape[i]);
	for (i = 0; i < ndim; i++) {
		if (shape[i] == 0) {
			n = 0;
			break;
		}
	}
	for (i = 0; n && i < ndim; i++) {
		if (n > (1ULL << 62) / (unsigned long long)shape[i])
			return kbx_error(KBX_EINVAL, "cannot compare on the GPU: the shape's size overflows");
		n *= (unsigned long long)shape[i];
	}
	esize = dtype_size(dt);
	if (n > (unsigned long long)(SIZE_MAX / 2) / esize)
		return kbx_error(KBX_EINVAL, "cannot compare on the GPU: %llu elements of %s overflow", n, dtype_name(dt));
	*bytes = (size_t)n * esize;
	if (n && (!have_cand || !have_ref))
		return kbx_error(KBX_EINVAL, "cannot compare on the GPU: no %s buffer", have_cand ? "reference" : "candidate");
	return KBX_OK;
}

/* ---- host emulation ------------------------------------------------------------------- */

typedef float cmp_tile_t;
#define CMP_TILE_MAX(t, i, v) \
	do { \
		if ((v) > (t)[i]) \
			(t)[i] = (v); \
	} while (0)

CMP_THREAD_WALK(emu_f32, float, 1, CMP_VISIT_F32)
CMP_THREAD_WALK(emu_f64, double, 1, CMP_VISIT_F64)
CMP_THREAD_WALK(emu_f16, uint16_t, 1, CMP_VISIT_F16)
CMP_THREAD_WALK(emu_bf16, uint16_t, 1, CMP_VISIT_BF16)
CMP_THREAD_WALK(emu_c64, float, 2, CMP_VISIT_F32)
CMP_THREAD_WALK(emu_i8, int8_t, 1, CMP_VISIT_INT)
CMP_THREAD_WALK(emu_u8, uint8_t, 1, CMP_VISIT_INT)
CMP_THREAD_WALK(emu_i16, int16_t, 1, CMP_VISIT_INT)
CMP_THREAD_WALK(emu_i32, int32_t, 1, CMP_VISIT_INT)
CMP_THREAD_WALK(emu_i64, int64_t, 1, CMP_VISIT_INT)

static void emu_walk(enum dtype dt, struct cmp_state *s, const void *c, const void *r, const struct cmp_geom *g,
		     cmp_u64 e, cmp_u64 end, float *tiles)
{
	const cmp_u64 st = GPUCOMPARE_THREADS;

	switch (dt) {
	case DT_F32: emu_f32(s, c, r, g, e, end, st, tiles); break;
	case DT_F64: emu_f64(s, c, r, g, e, end, st, tiles); break;
	case DT_F16: emu_f16(s, c, r, g, e, end, st, tiles); break;
	case DT_BF16: emu_bf16(s, c, r, g, e, end, st, tiles); break;
	case DT_C64: emu_c64(s, c, r, g, e, end, st, tiles); break;
	case DT_I8: emu_i8(s, c, r, g, e, end, st, tiles); break;
	case DT_U8:
	case DT_BOOL: emu_u8(s, c, r, g, e, end, st, tiles); break;
	case DT_I16: emu_i16(s, c, r, g, e, end, st, tiles); break;
	case DT_I32: emu_i32(s, c, r, g, e, end, st, tiles); break;
	case DT_I64: emu_i64(s, c, r, g, e, end, st, tiles); break;
	case DT_COUNT: break;
	}
}

/* The kernel's tree over the threads' values of one sum. */
static double tree_sum(double *v)
{
	for (int k = GPUCOMPARE_THREADS / 2; k > 0; k >>= 1)
		for (int t = 0; t < k; t++)
			v[t] = v[t] + v[t + k];
	return v[0];
}

/* One block's record, as the kernel writes it. */
static void emu_block(enum dtype dt, const void *cand, const void *ref, const struct cmp_geom *g, cmp_u64 lo,
		      cmp_u64 hi, const struct cmp_state *init, struct cmp_state *th, struct cmp_state *rec,
		      float *tiles)
{
	double v[GPUCOMPARE_THREADS];
	int t, i;

	for (t = 0; t < GPUCOMPARE_THREADS; t++) {
		th[t] = *init;
		emu_walk(dt, &th[t], cand, ref, g, lo + (cmp_u64)t, hi, tiles);
		cmp_flush_block(&th[t]);
	}
	*rec = *init;
#define EMU_SUM(F) \
	do { \
		for (t = 0; t < GPUCOMPARE_THREADS; t++) \
			v[t] = th[t].F; \
		rec->F = tree_sum(v); \
	} while (0)
	EMU_SUM(dot);
	EMU_SUM(cc);
	EMU_SUM(rr);
	EMU_SUM(l1n);
	EMU_SUM(l1d);
	EMU_SUM(se);
#undef EMU_SUM
	for (t = 0; t < GPUCOMPARE_THREADS; t++) {
		const struct cmp_state *s = &th[t];

		rec->mm += s->mm;
		rec->nan_mm += s->nan_mm;
		rec->inf_mm += s->inf_mm;
		rec->cand_nf += s->cand_nf;
		rec->ref_nf += s->ref_nf;
		rec->nfinite += s->nfinite;
		for (i = 0; i < CMPC_HIST; i++)
			rec->hist[i] += s->hist[i];
		if (s->max_abs > rec->max_abs)
			rec->max_abs = s->max_abs;
		if (s->max_rel > rec->max_rel)
			rec->max_rel = s->max_rel;
		if (s->max_ulp > rec->max_ulp)
			rec->max_ulp = s->max_ulp;
		/* the worst order is total: inserting every thread's list gives the kernel's rounds */
		for (i = 0; i < s->nworst; i++) {
			const struct cmp_worst_slot *w = &s->worst[i];

			cmp_worst_insert(rec, w->cls, w->idx, w->comp, w->cand, w->ref, w->abs_err, w->rel_err, w->ulp,
					 w->score);
		}
	}
}

enum kbx_status gpucompare_emulate(enum dtype dt, const void *cand, const void *ref, const long long *shape,
				   int ndim, const struct tolerance *tol, struct cmp_result *out)
{
	struct cmp_state s, init, rec, *th;
	struct cmp_setup su;
	unsigned long long per;
	unsigned blocks, b;
	size_t bytes;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	st = check_args(dt, cand != NULL, ref != NULL, shape, ndim, &bytes);
	if (st)
		return st;
	compare_setup(dt, shape, ndim, tol, &s, &su, out);
	init = s;
	gpucompare_plan(su.g.n, &per, &blocks);
	th = blocks ? xmalloc(GPUCOMPARE_THREADS * sizeof(*th)) : NULL;
	for (b = 0; b < blocks; b++) {
		cmp_u64 lo = (cmp_u64)b * per, hi = lo + per < su.g.n ? lo + per : su.g.n;

		emu_block(dt, cand, ref, &su.g, lo, hi, &init, th, &rec, out->tiles);
		cmp_merge_state(&s, &rec);
	}
	free(th);
	compare_finish(&s, &su, tol, out);
	return KBX_OK;
}

/* ---- the GPU ---------------------------------------------------------------------------- */

struct gpucompare {
	struct gpu *g;
	struct gpu_module *m;
	gpu_function fn, digest_fn;
	gpu_ptr records, tiles, sum;
	struct cmp_state *host;         /* GPUCOMPARE_MAX_BLOCKS records */
};

enum kbx_status gpucompare_open(struct gpu *g, const void *image, struct gpucompare **out)
{
	struct gpucompare *c = xcalloc(1, sizeof(*c));
	enum kbx_status st;

	*out = NULL;
	c->g = g;
	st = gpu_module_load(g, image, &c->m);
	if (!st)
		st = gpu_module_function(g, c->m, "kbx_gpucompare", &c->fn);
	if (!st)
		st = gpu_alloc(g, GPUCOMPARE_MAX_BLOCKS * sizeof(struct cmp_state), &c->records);
	if (!st)
		st = gpu_alloc(g, CMP_TILES * CMP_TILES * sizeof(uint32_t), &c->tiles);
	if (!st)
		st = gpu_module_function(g, c->m, "kbx_gpudigest", &c->digest_fn);
	if (!st)
		st = gpu_alloc(g, sizeof(uint64_t), &c->sum);
	if (st) {
		gpucompare_close(c);
		return kbx_wrap(st, "the GPU comparison");
	}
	c->host = xmalloc(GPUCOMPARE_MAX_BLOCKS * sizeof(struct cmp_state));
	*out = c;
	return KBX_OK;
}

void gpucompare_close(struct gpucompare *c)
{
	if (!c)
		return;
	if (c->records)
		gpu_free(c->g, c->records);
	if (c->tiles)
		gpu_free(c->g, c->tiles);
	if (c->sum)
		gpu_free(c->g, c->sum);
	if (c->m)
		gpu_module_unload(c->g, c->m);
	free(c->host);
	free(c);
}

enum kbx_status gpucompare_buffers(struct gpucompare *c, enum dtype dt, gpu_ptr cand, gpu_ptr ref,
				   const long long *shape, int ndim, const struct tolerance *tol,
				   struct cmp_result *out)
{
	struct cmp_state s;
	struct cmp_setup su;
	unsigned long long per;
	unsigned blocks, b, i;
	uint32_t tiles[CMP_TILES * CMP_TILES];
	size_t bytes;
	enum kbx_status st;

	memset(out, 0, sizeof(*out));
	if (!c)
		return kbx_error(KBX_EINVAL, "cannot compare on the GPU: no comparison kernel loaded");
	st = check_args(dt, cand != 0, ref != 0, shape, ndim, &bytes);
	if (st)
		return st;
	compare_setup(dt, shape, ndim, tol, &s, &su, out);
	gpucompare_plan(su.g.n, &per, &blocks);
	if (blocks) {
		unsigned long long n = su.g.n;
		long long h = su.g.h, w = su.g.w, th = su.g.tile_h, tw = su.g.tile_w, tc = su.g.tile_cols;
		double rtol = s.rtol, atol = s.atol;
		int idt = (int)dt;
		void *params[14] = { &cand, &ref, &idt, &n, &h, &w, &th, &tw, &tc, &rtol, &atol, &per, &c->records,
				     &c->tiles };
		unsigned grid[3] = { blocks, 1, 1 }, block[3] = { GPUCOMPARE_THREADS, 1, 1 };

		st = gpu_memset32(c->g, c->tiles, 0, CMP_TILES * CMP_TILES);
		if (!st)
			st = gpu_launch(c->g, c->fn, "kbx_gpucompare", grid, block, 0, params, 0);
		if (!st)
			st = gpu_download(c->g, c->host, c->records, blocks * sizeof(struct cmp_state));
		if (!st)
			st = gpu_download(c->g, tiles, c->tiles, sizeof(tiles));
		if (st) {
			memset(out, 0, sizeof(*out));
			return kbx_wrap(st, "the GPU comparison");
		}
		for (b = 0; b < blocks; b++)
			cmp_merge_state(&s, &c->host[b]);
		for (i = 0; i < CMP_TILES * CMP_TILES; i++)
			memcpy(&out->tiles[i], &tiles[i], sizeof(float));
	}
	compare_finish(&s, &su, tol, out);
	return KBX_OK;
}

/* ---- digests -------------------------------------------------------------------------------- */

static uint64_t digest_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The size's own term, so that buffers of zeros of different sizes differ. */
static uint64_t digest_size_term(size_t n, uint64_t salt)
{
	return digest_mix((uint64_t)n ^ digest_mix(salt ^ 0x9e3779b97f4a7c15ULL));
}

uint64_t gpucompare_digest_host(const void *p, size_t n, uint64_t salt)
{
	const unsigned char *b = p;
	uint64_t h = digest_size_term(n, salt);
	size_t j, full = n / 8, k;

	for (j = 0; j < full; j++) {
		uint64_t w;

		memcpy(&w, b + j * 8, 8);
		h += digest_mix(w ^ digest_mix((uint64_t)j ^ salt));
	}
	if (n % 8) {
		uint64_t w = 0;

		for (k = 0; j * 8 + k < n; k++)
			w |= (uint64_t)b[j * 8 + k] << (8 * k);
		h += digest_mix(w ^ digest_mix((uint64_t)j ^ salt));
	}
	return h;
}

enum kbx_status gpucompare_digest(struct gpucompare *c, gpu_ptr p, size_t n, uint64_t salt, uint64_t *out)
{
	unsigned long long words = (n + 7) / 8, nn = n, s = salt;
	uint64_t sum = 0;
	enum kbx_status st = KBX_OK;

	*out = 0;
	if (!c)
		return kbx_error(KBX_EINVAL, "cannot digest on the GPU: no comparison kernel loaded");
	if (n && !p)
		return kbx_error(KBX_EINVAL, "cannot digest on the GPU: no buffer");
	if (words) {
		unsigned blocks = (unsigned)((words + GPUCOMPARE_THREADS - 1) / GPUCOMPARE_THREADS);
		unsigned grid[3] = { blocks < 4096 ? blocks : 4096, 1, 1 }, block[3] = { GPUCOMPARE_THREADS, 1, 1 };
		void *params[4] = { &p, &nn, &s, &c->sum };

		st = gpu_memset32(c->g, c->sum, 0, 2);
		if (!st)
			st = gpu_launch(c->g, c->digest_fn, "kbx_gpudigest", grid, block, 0, params, 0);
		if (!st)
			st = gpu_download(c->g, &sum, c->sum, sizeof(sum));
		if (st)
			return kbx_wrap(st, "the GPU digest");
	}
	*out = digest_size_term(n, salt) + sum;
	return KBX_OK;
}

enum gpucompare_route gpucompare_route(const struct task *t, int want_gpu, int perf_row, int kernel_failed)
{
	if (!want_gpu)
		return GPUCOMPARE_HOST_OPTION;
	if (!perf_row)
		return GPUCOMPARE_HOST_CASE;
	if (t->verifier && !strcmp(t->verifier, "property")) {
		const char *kind = binding_get(t->verifier_params, t->nverifier_params, "property");

		if (!kind || (strcmp(kind, "qr") && strcmp(kind, "eig")))
			return GPUCOMPARE_HOST_VERIFIER;
	} else if (t->verifier && strcmp(t->verifier, "elementwise") && strcmp(t->verifier, "distribution")) {
		return GPUCOMPARE_HOST_VERIFIER;
	}
	if (t->exact_buf && want_gpu == COMPARE_BOTH)
		return GPUCOMPARE_HOST_EXACT;
	if (kernel_failed)
		return GPUCOMPARE_HOST_NO_KERNEL;
	return GPUCOMPARE_ON_GPU;
}

const char *compare_mode_name(int mode)
{
	return mode == COMPARE_GPU ? "gpu" : mode == COMPARE_BOTH ? "both" : "host";
}

int compare_mode_parse(const char *s)
{
	for (int m = COMPARE_HOST; m <= COMPARE_BOTH; m++)
		if (!strcmp(s, compare_mode_name(m)))
			return m;
	return -1;
}

const char *gpucompare_route_why(enum gpucompare_route how)
{
	switch (how) {
	case GPUCOMPARE_ON_GPU: return "compared on the GPU";
	case GPUCOMPARE_HOST_OPTION: return "--compare host";
	case GPUCOMPARE_HOST_CASE: return "a case, not a perf row";
	case GPUCOMPARE_HOST_VERIFIER: return "the task's verifier runs on the host";
	case GPUCOMPARE_HOST_EXACT: return "--compare both: the task's [tolerance] exact result is compared on the host";
	case GPUCOMPARE_HOST_NO_KERNEL: return "the GPU comparison kernel cannot be used";
	}
	return "?";
}
