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
	"				      unsigned long long key2, unsigned long long m, unsigned long long j)\n"
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
	"	case KBX_GEN_DIAGDOM:\n"
	"		/* randn at the element's own index, a m added on each matrix's diagonal */\n"
	"		v = kbx_dg_randn(key, j);\n"
	"		return (j % (m * m)) / m == j % m ? __dadd_rn(v, __dmul_rn(a, (double)m)) : __dadd_rn(v, 0.0);\n"
	"	case KBX_GEN_SYMMETRIC: {\n"
	"		/* entry (r, c) and (c, r) are the same draw: the one at the upper triangle's index */\n"
	"		unsigned long long in = j % (m * m), r = in / m, c = in % m;\n"
	"\n"
	"		return __dadd_rn(a, __dmul_rn(__dadd_rn(b, -a), kbx_uniform_f64(key, j - in + (r < c ? r * m + c : c * m + r))));\n"
	"	}\n"
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
	"static __device__ int kbx_dg_width(int dt)\n"
	"{\n"
	"	return dt == KBX_DT_F64 || dt == KBX_DT_I64 ? 8 : dt == KBX_DT_F16 || dt == KBX_DT_BF16 ||\n"
	"	       dt == KBX_DT_I16 ? 2 : dt == KBX_DT_I8 || dt == KBX_DT_U8 || dt == KBX_DT_BOOL ? 1 : 4;\n"
	"}\n"
	"\n"
	"/* Store bits at element j (check == 0), or return 1 when element j does not hold them. */\n"
	"static __device__ int kbx_dg_put(unsigned char *buf, int width, unsigned long long j, unsigned long long bits,\n"
	"				  int check)\n"
	"{\n"
	"	unsigned long long have;\n"
	"\n"
	"	if (!check) {\n"
	"		if (width == 8) ((unsigned long long *)buf)[j] = bits;\n"
	"		else if (width == 4) ((unsigned int *)buf)[j] = (unsigned int)bits;\n"
	"		else if (width == 2) ((unsigned short *)buf)[j] = (unsigned short)bits;\n"
	"		else buf[j] = (unsigned char)bits;\n"
	"		return 0;\n"
	"	}\n"
	"	have = width == 8 ? ((unsigned long long *)buf)[j] : width == 4 ? ((unsigned int *)buf)[j] :\n"
	"		width == 2 ? ((unsigned short *)buf)[j] : buf[j];\n"
	"	return have != (width == 8 ? bits : bits & ((1ULL << (8 * width)) - 1));\n"
	"}\n"
	"\n"
	"/* Element i's component c is draw i * comps + c, as on the host; m is the trailing square\n"
	" * matrices' size (diagdom, symmetric). check != 0: compare instead of writing, and set\n"
	" * *differs when any element is not what would be written. */\n"
	"extern \"C\" __global__ void kbx_devgen(unsigned char *buf, unsigned long long n, int dt, int kind, double a,\n"
	"					double b, double scale, double below_hi, unsigned long long key,\n"
	"					unsigned long long key2, unsigned long long m, int check,\n"
	"					unsigned int *differs)\n"
	"{\n"
	"	int comps = dt == KBX_DT_C64 ? 2 : 1, width = kbx_dg_width(dt);\n"
	"	int is_float = dt == KBX_DT_F32 || dt == KBX_DT_C64 || dt == KBX_DT_F64 || dt == KBX_DT_F16 ||\n"
	"		       dt == KBX_DT_BF16;\n"
	"	unsigned long long total = n * (unsigned long long)comps, j;\n"
	"	int bad = 0;\n"
	"\n"
	"	for (j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; j < total;\n"
	"	     j += (unsigned long long)gridDim.x * blockDim.x) {\n"
	"		double back, v = kbx_dg_value(kind, a, b, scale, key, key2, m, j);\n"
	"		unsigned long long bits = kbx_dg_bits(dt, v, &back);\n"
	"\n"
	"		/* uniform(a, b) never gives b, even where rounding to the dtype reaches it */\n"
	"		if ((kind == KBX_GEN_UNIFORM || kind == KBX_GEN_SYMMETRIC) && is_float && back >= b)\n"
	"			bits = kbx_dg_bits(dt, below_hi >= a ? below_hi : a, &back);\n"
	"		bad |= kbx_dg_put(buf, width, j, bits, check);\n"
	"	}\n"
	"	if (bad)\n"
	"		atomicOr(differs, 1u);\n"
	"}\n"
	"\n"
	"/* spd's B: out[i] = randn at draw base + i, in double. */\n"
	"extern \"C\" __global__ void kbx_devgen_randn64(double *out, unsigned long long n, unsigned long long key,\n"
	"						unsigned long long base)\n"
	"{\n"
	"	unsigned long long i;\n"
	"\n"
	"	for (i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;\n"
	"	     i += (unsigned long long)gridDim.x * blockDim.x)\n"
	"		out[i] = kbx_dg_randn(key, base + i);\n"
	"}\n"
	"\n"
	"/* spd(d): A = B B^T / m + d I for matrix blockIdx.z of a chunk (its B at B + z m m, its A at\n"
	" * element (first + z) m m of buf). A block of 16 x 16 threads computes a 64 x 64 tile of the\n"
	" * lower triangle, 4 x 4 entries a thread, and writes each entry at (r, c) and (c, r). Every\n"
	" * entry is the host's sum: one product after another in k order, rounded at each step. */\n"
	"#define KBX_SPD_TILE 64\n"
	"#define KBX_SPD_K 16\n"
	"extern \"C\" __global__ void __launch_bounds__(256) kbx_devgen_spd(unsigned char *buf, const double *B,\n"
	"		unsigned long long m, unsigned long long first, int dt, double d, int check, unsigned int *differs)\n"
	"{\n"
	"	__shared__ double si[KBX_SPD_K][KBX_SPD_TILE + 1], sj[KBX_SPD_K][KBX_SPD_TILE + 1];\n"
	"	unsigned long long i0 = (unsigned long long)blockIdx.y * KBX_SPD_TILE, j0 = (unsigned long long)blockIdx.x * KBX_SPD_TILE;\n"
	"	unsigned long long mat = m * m, off = (first + blockIdx.z) * mat, k0;\n"
	"	const double *Bz = B + (unsigned long long)blockIdx.z * mat;\n"
	"	int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx, width = kbx_dg_width(dt), bad = 0, r, c, kk;\n"
	"	double acc[4][4];\n"
	"\n"
	"	if (j0 > i0)\n"
	"		return;\n"
	"	for (r = 0; r < 4; r++)\n"
	"		for (c = 0; c < 4; c++)\n"
	"			acc[r][c] = 0.0;\n"
	"	for (k0 = 0; k0 < m; k0 += KBX_SPD_K) {\n"
	"		int nk = m - k0 < KBX_SPD_K ? (int)(m - k0) : KBX_SPD_K;\n"
	"\n"
	"		for (int e = t; e < KBX_SPD_K * KBX_SPD_TILE; e += 256) {\n"
	"			int row = e / KBX_SPD_K, k = e % KBX_SPD_K;\n"
	"\n"
	"			si[k][row] = i0 + row < m && k < nk ? Bz[(i0 + row) * m + k0 + k] : 0.0;\n"
	"			sj[k][row] = j0 + row < m && k < nk ? Bz[(j0 + row) * m + k0 + k] : 0.0;\n"
	"		}\n"
	"		__syncthreads();\n"
	"		for (kk = 0; kk < nk; kk++)\n"
	"			for (r = 0; r < 4; r++)\n"
	"				for (c = 0; c < 4; c++)\n"
	"					acc[r][c] = __dadd_rn(acc[r][c], __dmul_rn(si[kk][ty + 16 * r], sj[kk][tx + 16 * c]));\n"
	"		__syncthreads();\n"
	"	}\n"
	"	for (r = 0; r < 4; r++)\n"
	"		for (c = 0; c < 4; c++) {\n"
	"			unsigned long long row = i0 + ty + 16 * r, col = j0 + tx + 16 * c, bits;\n"
	"			double back, v;\n"
	"\n"
	"			if (row >= m || col >= m)\n"
	"				continue;\n"
	"			v = __dadd_rn(__ddiv_rn(acc[r][c], (double)m), row == col ? d : 0.0);\n"
	"			bits = kbx_dg_bits(dt, v, &back);\n"
	"			bad |= kbx_dg_put(buf, width, off + row * m + col, bits, check);\n"
	"			bad |= kbx_dg_put(buf, width, off + col * m + row, bits, check);\n"
	"		}\n"
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
			   "#define KBX_GEN_FULL %d\n#define KBX_GEN_ARANGE %d\n#define KBX_GEN_DIAGDOM %d\n"
			   "#define KBX_GEN_SYMMETRIC %d\n%s",
			   defs, GEN_RANDN, GEN_UNIFORM, GEN_OUTLIER, GEN_RANDINT, GEN_BOOL, GEN_ONES, GEN_FULL, GEN_ARANGE,
			   GEN_DIAGDOM, GEN_SYMMETRIC, kernel_body);
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
	case GEN_SPD:
	case GEN_DIAGDOM:
	case GEN_SYMMETRIC:
		/* as gen_check: real floats only (the shape is checked when drawing) */
		return dtype_is_float(dt) && dtype_components(dt) == 1;
	default:
		return 0;
	}
}

struct devgen {
	struct gpu *g;
	struct gpu_module *m;
	gpu_function fn, randn64, spd;
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
		st = gpu_module_function(g, d->m, "kbx_devgen_randn64", &d->randn64);
	if (!st)
		st = gpu_module_function(g, d->m, "kbx_devgen_spd", &d->spd);
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

/* A grid-stride launch over `work` items, at most 16 blocks per SM. */
static void stride_grid(const struct devgen *d, size_t work, unsigned grid[3])
{
	size_t blocks = (work + DEVGEN_THREADS - 1) / DEVGEN_THREADS;
	size_t cap = (size_t)gpu_get_info(d->g)->sms * 16;

	grid[0] = (unsigned)(blocks < cap ? blocks : cap);
	grid[1] = grid[2] = 1;
}

static enum kbx_status launch_elementwise(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf,
					  size_t n, uint64_t m, uint64_t key, int check)
{
	unsigned long long nn = n, k = key, k2 = kbx_subseed(key, 1), mm = m;
	int idt = (int)dt, kind = (int)g->kind;
	double a = g->a, b = g->b, scale = g->scale, below_hi = 0;
	void *params[13] = { &buf, &nn, &idt, &kind, &a, &b, &scale, &below_hi, &k, &k2, &mm, &check, &d->flag };
	unsigned grid[3], block[3] = { DEVGEN_THREADS, 1, 1 };

	if ((g->kind == GEN_UNIFORM || g->kind == GEN_SYMMETRIC) && dtype_is_float(dt))
		below_hi = gen_largest_below(dt, g->b);
	stride_grid(d, n * (size_t)dtype_components(dt), grid);
	return gpu_launch(d->g, d->fn, "kbx_devgen", grid, block, 0, params, 0);
}

/* spd(d): for each chunk of matrices, their B drawn into a scratch buffer of doubles, then A
 * from it. The scratch holds as many matrices as fit in SPD_SCRATCH bytes (one at least). */
#define SPD_SCRATCH ((size_t)1 << 28)
#define SPD_TILE 64

static enum kbx_status launch_spd(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf, size_t n,
				  uint64_t m, uint64_t key, int check)
{
	size_t mat = (size_t)m * m, nmat = n / mat, per = SPD_SCRATCH / (mat * sizeof(double)), first;
	unsigned tiles = (unsigned)((m + SPD_TILE - 1) / SPD_TILE), block[3] = { 16, 16, 1 };
	enum kbx_status st;
	gpu_ptr B = 0;

	if (per < 1)
		per = 1;
	if (per > 65535)
		per = 65535;
	if (per > nmat)
		per = nmat;
	st = gpu_alloc(d->g, per * mat * sizeof(double), &B);
	for (first = 0; !st && first < nmat; first += per) {
		size_t count = nmat - first < per ? nmat - first : per;
		unsigned long long nb = count * mat, base = first * mat, k = key, mm = m, f = first;
		int idt = (int)dt;
		double dd = g->a;
		void *rparams[4] = { &B, &nb, &k, &base };
		void *sparams[8] = { &buf, &B, &mm, &f, &idt, &dd, &check, &d->flag };
		unsigned rgrid[3], rblock[3] = { DEVGEN_THREADS, 1, 1 }, sgrid[3] = { tiles, tiles, (unsigned)count };

		stride_grid(d, nb, rgrid);
		st = gpu_launch(d->g, d->randn64, "kbx_devgen_randn64", rgrid, rblock, 0, rparams, 0);
		if (!st)
			st = gpu_launch(d->g, d->spd, "kbx_devgen_spd", sgrid, block, 0, sparams, 0);
	}
	if (B) {
		/* the scratch is reused by the next chunk's draw only after the launches before it,
		 * on the one stream; it is freed once they are done */
		if (!st)
			st = gpu_sync(d->g);
		gpu_free(d->g, B);
	}
	return st;
}

static enum kbx_status launch(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf, size_t n,
			      const long long *shape, int ndim, uint64_t key, int check)
{
	uint64_t m;
	enum kbx_status st;

	if (!devgen_supports(g, dt))
		return kbx_error(KBX_EINVAL, "no GPU generator for this input");
	st = gen_check(g, dt, shape, ndim);
	if (st)
		return st;
	st = gen_matrix_size(g, n, shape, ndim, &m);
	if (st)
		return st;
	if (!n)
		return KBX_OK;
	if (g->kind == GEN_SPD)
		return launch_spd(d, g, dt, buf, n, m, key, check);
	return launch_elementwise(d, g, dt, buf, n, m, key, check);
}

enum kbx_status devgen_fill(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr dst, size_t n,
			    const long long *shape, int ndim, uint64_t key)
{
	return launch(d, g, dt, dst, n, shape, ndim, key, 0);
}

enum kbx_status devgen_check(struct devgen *d, const struct gen_spec *g, enum dtype dt, gpu_ptr buf, size_t n,
			     const long long *shape, int ndim, uint64_t key, int *differs)
{
	unsigned flag = 0;
	enum kbx_status st;

	*differs = 0;
	st = gpu_memset32(d->g, d->flag, 0, 1);
	if (!st)
		st = launch(d, g, dt, buf, n, shape, ndim, key, 1);
	if (!st)
		st = gpu_download(d->g, &flag, d->flag, sizeof(flag));
	*differs = flag != 0;
	return st;
}
