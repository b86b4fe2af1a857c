/*
 * The input generators on the GPU: see devgen.h. The kernel mirrors inputs.c's value_at and
 * dtype.c's dtype_set step for step; every product and sum goes through __dmul_rn / __dadd_rn,
 * because NVRTC would otherwise contract a + b * c into one fused multiply-add and round
 * differently from the host.
 */
#include "devgen.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbx/rng.h"
#include "util.h"

#define DEVGEN_THREADS 256

static const char kernel_body[] =
	"#include <kbx/rng.h>\n"
	"#include <cuda_fp16.h>\n"
	"#include <cuda_bf16.h>\n"
	"\n"
	"static __device__ double kbx_dg_randn(unsigned long long key, unsigned long long j)\n"
	"{\n"
	"	struct kbx_u4 r = kbx_draw4(key, j);\n"
	"	double u1 = (double)((((unsigned long long)r.x << 32) | r.y) >> 11) * (1.0 / 9007199254740992.0);\n"
	"	double u2 = (double)((((unsigned long long)r.z << 32) | r.w) >> 11) * (1.0 / 9007199254740992.0);\n"
	"	return __dmul_rn(sqrt(__dmul_rn(-2.0, log(__dadd_rn(1.0, -u1)))),\n"
	"			 cos(__dmul_rn(6.283185307179586476925286766559, u2)));\n"
	"}\n"
	"\n"
	"static __device__ double kbx_dg_value(int kind, double a, double b, double scale, unsigned long long key,\n"
	"				      unsigned long long key2, unsigned long long j)\n"
	"{\n"
	"	double v;\n"
	"\n"
	"	switch (kind) {\n"
	"	case KBX_GEN_RANDN:\n"
	"		return __dmul_rn(kbx_dg_randn(key, j), scale != 0 ? scale : 1.0);\n"
	"	case KBX_GEN_UNIFORM:\n"
	"		return __dadd_rn(a, __dmul_rn(__dadd_rn(b, -a), kbx_uniform_f64(key, j)));\n"
	"	case KBX_GEN_OUTLIER:\n"
	"		v = kbx_dg_randn(key, j);\n"
	"		if (kbx_uniform_f64(key2, j) < a)\n"
	"			v = __dmul_rn(v, b);\n"
	"		return scale != 0 ? __dmul_rn(v, scale) : v;\n"
	"	case KBX_GEN_RANDINT:\n"
	"		v = __dadd_rn(a, floor(__dmul_rn(kbx_uniform_f64(key, j), __dadd_rn(b, -a))));\n"
	"		return v < b ? v : __dadd_rn(b, -1.0);\n"
	"	case KBX_GEN_BOOL:\n"
	"		return kbx_uniform_f64(key, j) < a ? 1.0 : 0.0;\n"
	"	case KBX_GEN_ONES:\n"
	"		return 1.0;\n"
	"	case KBX_GEN_FULL:\n"
	"		return a;\n"
	"	case KBX_GEN_ARANGE:\n"
	"		return __dadd_rn(a, __dmul_rn((double)j, b));\n"
	"	}\n"
	"	return 0.0;\n"
	"}\n"
	"\n"
	"static __device__ long long kbx_dg_saturate(double v, double lo, double hi)\n"
	"{\n"
	"	if (v != v)\n"
	"		return 0;\n"
	"	if (v <= lo)\n"
	"		return (long long)lo;\n"
	"	if (v >= hi)\n"
	"		return (long long)hi;\n"
	"	return (long long)v;\n"
	"}\n"
	"\n"
	"/* dtype_set's bits for v; *back is the stored value read back as a double (floats) */\n"
	"static __device__ unsigned long long kbx_dg_bits(int dt, double v, double *back)\n"
	"{\n"
	"	*back = v;\n"
	"	switch (dt) {\n"
	"	case KBX_DT_F32:\n"
	"	case KBX_DT_C64: {\n"
	"		float f = __double2float_rn(v);\n"
	"		*back = (double)f;\n"
	"		return __float_as_uint(f);\n"
	"	}\n"
	"	case KBX_DT_F64:\n"
	"		return (unsigned long long)__double_as_longlong(v);\n"
	"	case KBX_DT_F16: {\n"
	"		__half h = __double2half(v);\n"
	"		*back = (double)__half2float(h);\n"
	"		return __half_as_ushort(h);\n"
	"	}\n"
	"	case KBX_DT_BF16: {\n"
	"		__nv_bfloat16 h = __double2bfloat16(v);\n"
	"		*back = (double)__bfloat162float(h);\n"
	"		return __bfloat16_as_ushort(h);\n"
	"	}\n"
	"	case KBX_DT_I8: return (unsigned long long)(long long)(signed char)kbx_dg_saturate(v, -128, 127);\n"
	"	case KBX_DT_U8: return (unsigned long long)kbx_dg_saturate(v, 0, 255);\n"
	"	case KBX_DT_I16: return (unsigned long long)(long long)(short)kbx_dg_saturate(v, -32768, 32767);\n"
	"	case KBX_DT_I32: return (unsigned long long)(long long)(int)kbx_dg_saturate(v, -2147483648.0, 2147483647.0);\n"
	"	case KBX_DT_I64:\n"
	"		if (v != v)\n"
	"			return 0;\n"
	"		if (v >= 9223372036854775808.0)\n"
	"			return 0x7fffffffffffffffULL;\n"
	"		if (v <= -9223372036854775808.0)\n"
	"			return 0x8000000000000000ULL;\n"
	"		return (unsigned long long)(long long)v;\n"
	"	case KBX_DT_BOOL: return v != 0;\n"
	"	}\n"
	"	return 0;\n"
	"}\n"
	"\n"
	"/* Element i's component c is draw i * comps + c, as on the host. check != 0: compare\n"
	" * instead of writing, and set *differs when any element is not what would be written. */\n"
	"extern \"C\" __global__ void kbx_devgen(unsigned char *buf, unsigned long long n, int dt, int kind, double a,\n"
	"					double b, double scale, double below_hi, unsigned long long key,\n"
	"					unsigned long long key2, int check, unsigned int *differs)\n"
	"{\n"
	"	int comps = dt == KBX_DT_C64 ? 2 : 1;\n"
	"	int width = dt == KBX_DT_F64 || dt == KBX_DT_I64 ? 8 : dt == KBX_DT_F16 || dt == KBX_DT_BF16 ||\n"
	"		    dt == KBX_DT_I16 ? 2 : dt == KBX_DT_I8 || dt == KBX_DT_U8 || dt == KBX_DT_BOOL ? 1 : 4;\n"
	"	int is_float = dt == KBX_DT_F32 || dt == KBX_DT_C64 || dt == KBX_DT_F64 || dt == KBX_DT_F16 ||\n"
	"		       dt == KBX_DT_BF16;\n"
	"	unsigned long long total = n * (unsigned long long)comps, j;\n"
	"	int bad = 0;\n"
	"\n"
	"	for (j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; j < total;\n"
	"	     j += (unsigned long long)gridDim.x * blockDim.x) {\n"
	"		double back, v = kbx_dg_value(kind, a, b, scale, key, key2, j);\n"
	"		unsigned long long bits = kbx_dg_bits(dt, v, &back);\n"
	"\n"
	"		/* uniform(a, b) never gives b, even where rounding to the dtype reaches it */\n"
	"		if (kind == KBX_GEN_UNIFORM && is_float && back >= b)\n"
	"			bits = kbx_dg_bits(dt, below_hi >= a ? below_hi : a, &back);\n"
	"		if (!check) {\n"
	"			if (width == 8) ((unsigned long long *)buf)[j] = bits;\n"
	"			else if (width == 4) ((unsigned int *)buf)[j] = (unsigned int)bits;\n"
	"			else if (width == 2) ((unsigned short *)buf)[j] = (unsigned short)bits;\n"
	"			else buf[j] = (unsigned char)bits;\n"
	"		} else {\n"
	"			unsigned long long have = width == 8 ? ((unsigned long long *)buf)[j] :\n"
	"				width == 4 ? ((unsigned int *)buf)[j] : width == 2 ? ((unsigned short *)buf)[j] : buf[j];\n"
	"			bad |= have != (width == 8 ? bits : bits & ((1ULL << (8 * width)) - 1));\n"
	"		}\n"
	"	}\n"
	"	if (bad)\n"
	"		atomicOr(differs, 1u);\n"
	"}\n";

static pthread_once_t source_once = PTHREAD_ONCE_INIT;
static char *source;

/* The host's enum values, so that the kernel's switch cases are the host's numbers. */
static void build_source(void)
{
	char defs[512];

	dtype_cuda_defines(defs, sizeof(defs));
	source = xasprintf("%s#define KBX_GEN_RANDN %d\n#define KBX_GEN_UNIFORM %d\n#define KBX_GEN_OUTLIER %d\n"
			   "#define KBX_GEN_RANDINT %d\n#define KBX_GEN_BOOL %d\n#define KBX_GEN_ONES %d\n"
			   "#define KBX_GEN_FULL %d\n#define KBX_GEN_ARANGE %d\n%s",
			   defs, GEN_RANDN, GEN_UNIFORM, GEN_OUTLIER, GEN_RANDINT, GEN_BOOL, GEN_ONES, GEN_FULL, GEN_ARANGE,
			   kernel_body);
}

const char *devgen_source(void)
{
	pthread_once(&source_once, build_source);
	return source;
}

int devgen_supports(const struct gen_spec *g, enum dtype dt)
{
	if (dt == DT_COUNT)
		return 0;
	switch (g->kind) {
	case GEN_RANDN:
	case GEN_UNIFORM:
	case GEN_OUTLIER:
	case GEN_RANDINT:
	case GEN_BOOL:
	case GEN_ZEROS:
	case GEN_ONES:
	case GEN_FULL:
	case GEN_ARANGE:
		return 1;
	default:
		return 0;
	}
}

struct devgen {
	struct gpu *g;
	struct gpu_module *m;
	gpu_function fn;
	gpu_ptr flag;
};

enum kbx_status devgen_open(struct gpu *g, const void *image, struct devgen **out)
{
	struct devgen *d = xcalloc(1, sizeof(*d));
	enum kbx_status st;

	*out = NULL;
	d->g = g;
	st = gpu_module_load(g, image, &d->m);
	if (!st)
		st = gpu_module_function(g, d->m, "kbx_devgen", &d->fn);
	if (!st)
		st = gpu_alloc(g, sizeof(unsigned), &d->flag);
	if (st) {
		devgen_close(d);
		return kbx_wrap(st, "the GPU input generator");
	}
	*out = d;
	return KBX_OK;
}

void devgen_close(struct devgen *d)
{
	if (!d)
		return;
	if (d->flag)
		gpu_free(d->g, d->flag);
	if (d->m)
		gpu_module_unload(d->g, d->m);
	free(d);
}

static enum kbx_status launch(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf, size_t n,
			      uint64_t key, int check)
{
	unsigned long long nn = n, k = key, k2 = kbx_subseed(key, 1);
	int idt = (int)dt, kind = (int)g->kind;
	double a = g->a, b = g->b, scale = g->scale, below_hi = 0;
	void *params[12] = { &buf, &nn, &idt, &kind, &a, &b, &scale, &below_hi, &k, &k2, &check, &d->flag };
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { DEVGEN_THREADS, 1, 1 };
	size_t blocks = (n * (size_t)dtype_components(dt) + DEVGEN_THREADS - 1) / DEVGEN_THREADS;
	size_t cap = (size_t)gpu_get_info(d->g)->sms * 16;

	if (!n)
		return KBX_OK;
	if (g->kind == GEN_UNIFORM && dtype_is_float(dt))
		below_hi = gen_largest_below(dt, g->b);
	grid[0] = (unsigned)(blocks < cap ? blocks : cap);
	return gpu_launch(d->g, d->fn, "kbx_devgen", grid, block, 0, params, 0);
}

enum kbx_status devgen_fill(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr dst, size_t n,
			    uint64_t key)
{
	if (!devgen_supports(g, dt))
		return kbx_error(KBX_EINVAL, "no GPU generator for this input");
	return launch(d, g, dt, dst, n, key, 0);
}

enum kbx_status devgen_check(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf, size_t n,
			     uint64_t key, int *differs)
{
	unsigned flag = 0;
	enum kbx_status st;

	*differs = 0;
	if (!devgen_supports(g, dt))
		return kbx_error(KBX_EINVAL, "no GPU generator for this input");
	st = gpu_memset32(d->g, d->flag, 0, 1);
	if (!st)
		st = launch(d, g, dt, buf, n, key, 1);
	if (!st)
		st = gpu_download(d->g, &flag, d->flag, sizeof(flag));
	*differs = flag != 0;
	return st;
}
