/*
 * starter.c - the starter skeleton (see starter.h).
 */
#include "starter.h"

#include <string.h>

#include "util.h"

static const char *c_type(const struct task_arg *a)
{
	int in = a->dir == ARG_IN;

	switch (a->dtype) {
	case DT_F32: return a->dir == ARG_SCALAR ? "float" : in ? "const float *" : "float *";
	case DT_F64: return a->dir == ARG_SCALAR ? "double" : in ? "const double *" : "double *";
	case DT_F16: return in ? "const __half *" : "__half *";
	case DT_BF16: return in ? "const __nv_bfloat16 *" : "__nv_bfloat16 *";
	case DT_I8: return in ? "const signed char *" : "signed char *";
	case DT_U8:
	case DT_BOOL: return in ? "const unsigned char *" : "unsigned char *";
	case DT_I16: return in ? "const short *" : "short *";
	case DT_I32: return a->dir == ARG_SCALAR ? "int" : in ? "const int *" : "int *";
	case DT_I64: return a->dir == ARG_SCALAR ? "long long" : in ? "const long long *" : "long long *";
	case DT_C64: return in ? "const float2 *" : "float2 *";
	case DT_COUNT: break;
	}
	return "void *";
}

char *starter_text(const struct task *t)
{
	const struct task_arg *out = NULL;
	struct sbuf n = SBUF_INIT, s = SBUF_INIT;
	int i, d;

	for (i = 0; i < t->nargs && !out; i++)
		if (t->args[i].dir == ARG_OUT || t->args[i].dir == ARG_INOUT)
			out = &t->args[i];
	if (out && out->ndim) {
		for (d = 0; d < out->ndim; d++)
			sbuf_addf(&n, "%s(%s)", d ? " * " : "", out->shape[d]);
	} else {
		sbuf_adds(&n, "1");
	}
	sbuf_addf(&s, "// Candidate for %s: %s\n", t->id, t->summary ? t->summary : "");
	sbuf_adds(&s, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n");
	sbuf_addf(&s, "// @kbx launch %s_kernel<<<cdiv(%s, 256), 256>>>(", t->name, n.buf);
	for (i = 0; i < t->nargs; i++)
		sbuf_addf(&s, "%s%s", i ? ", " : "", t->args[i].name);
	sbuf_addf(&s, ")\nextern \"C\" __global__ void %s_kernel(", t->name);
	for (i = 0; i < t->nargs; i++) {
		const char *ty = c_type(&t->args[i]);
		size_t l = strlen(ty);

		sbuf_addf(&s, "%s%s%s%s", i ? ", " : "", ty, ty[l - 1] == '*' ? "" : " ", t->args[i].name);
	}
	sbuf_adds(&s, ")\n{\n\tlong long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n");
	sbuf_addf(&s, "\tif (i >= %s)\n\t\treturn;\n\t// TODO: compute element i\n}\n", n.buf);
	sbuf_release(&n);
	return sbuf_detach(&s);
}

/* Element conversions through float, for every buffer type of c_type(). */
static const char trivial_helpers[] =
	"static __device__ float kbx_tf(float v) { return v; }\n"
	"static __device__ float kbx_tf(double v) { return (float)v; }\n"
	"static __device__ float kbx_tf(__half v) { return __half2float(v); }\n"
	"static __device__ float kbx_tf(__nv_bfloat16 v) { return __bfloat162float(v); }\n"
	"static __device__ float kbx_tf(signed char v) { return (float)v; }\n"
	"static __device__ float kbx_tf(unsigned char v) { return (float)v; }\n"
	"static __device__ float kbx_tf(short v) { return (float)v; }\n"
	"static __device__ float kbx_tf(int v) { return (float)v; }\n"
	"static __device__ float kbx_tf(long long v) { return (float)v; }\n"
	"static __device__ float kbx_tf(float2 v) { return v.x; }\n"
	"static __device__ void kbx_st(float *p, float v) { *p = v; }\n"
	"static __device__ void kbx_st(double *p, float v) { *p = v; }\n"
	"static __device__ void kbx_st(__half *p, float v) { *p = __float2half(v); }\n"
	"static __device__ void kbx_st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }\n"
	"static __device__ void kbx_st(signed char *p, float v) { *p = (signed char)(v == v ? v : 0); }\n"
	"static __device__ void kbx_st(unsigned char *p, float v) { *p = (unsigned char)(v == v && v > 0 ? v : 0); }\n"
	"static __device__ void kbx_st(short *p, float v) { *p = (short)(v == v ? v : 0); }\n"
	"static __device__ void kbx_st(int *p, float v) { *p = (int)(v == v ? v : 0); }\n"
	"static __device__ void kbx_st(long long *p, float v) { *p = (long long)(v == v ? v : 0); }\n"
	"static __device__ void kbx_st(float2 *p, float v) { *p = make_float2(v, 0.f); }\n\n";

static void add_numel(struct sbuf *s, const struct task_arg *a)
{
	int d;

	sbuf_adds(s, "i64(");
	if (!a->ndim)
		sbuf_adds(s, "1");
	for (d = 0; d < a->ndim; d++)
		sbuf_addf(s, "%s(%s)", d ? " * " : "", a->shape[d]);
	sbuf_adds(s, ")");
}

char *starter_trivial(const struct task *t, const char *kind)
{
	const struct task_arg *src = NULL;
	struct sbuf s = SBUF_INIT;
	int i, copy = !strcmp(kind, "copy");

	if (!copy && strcmp(kind, "zeros") && strcmp(kind, "ones"))
		return NULL;
	for (i = 0; i < t->nargs && !src; i++)
		if (t->args[i].dir == ARG_IN)
			src = &t->args[i];
	sbuf_addf(&s, "// Degenerate candidate for %s (%s): no task may pass it.\n", t->id, kind);
	sbuf_adds(&s, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n");
	sbuf_adds(&s, trivial_helpers);
	sbuf_adds(&s, "// @kbx launch trivial<<<1024, 256>>>(");
	for (i = 0; i < t->nargs; i++)
		sbuf_addf(&s, "%s, ", t->args[i].name);
	if (copy && src)
		add_numel(&s, src);
	else
		sbuf_adds(&s, "i64(0)");
	for (i = 0; i < t->nargs; i++) {
		if (t->args[i].dir != ARG_OUT && t->args[i].dir != ARG_INOUT)
			continue;
		sbuf_adds(&s, ", ");
		add_numel(&s, &t->args[i]);
	}
	sbuf_adds(&s, ")\nextern \"C\" __global__ void trivial(");
	for (i = 0; i < t->nargs; i++) {
		const char *ty = c_type(&t->args[i]);
		size_t l = strlen(ty);

		sbuf_addf(&s, "%s%s%s", ty, ty[l - 1] == '*' ? "" : " ", t->args[i].name);
		sbuf_adds(&s, ", ");
	}
	sbuf_adds(&s, "long long kbx_nsrc");
	for (i = 0; i < t->nargs; i++)
		if (t->args[i].dir == ARG_OUT || t->args[i].dir == ARG_INOUT)
			sbuf_addf(&s, ", long long kbx_n_%s", t->args[i].name);
	sbuf_adds(&s, ")\n{\n\tlong long kbx_start = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
		      "\tlong long kbx_step = (long long)gridDim.x * blockDim.x;\n");
	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		if (a->dir != ARG_OUT && a->dir != ARG_INOUT)
			continue;
		sbuf_addf(&s, "\tfor (long long kbx_i = kbx_start; kbx_i < kbx_n_%s; kbx_i += kbx_step)\n", a->name);
		if (copy && src)
			sbuf_addf(&s, "\t\tkbx_st(%s + kbx_i, kbx_nsrc ? kbx_tf(%s[kbx_i %% kbx_nsrc]) : 0.f);\n", a->name, src->name);
		else
			sbuf_addf(&s, "\t\tkbx_st(%s + kbx_i, %s);\n", a->name, strcmp(kind, "ones") ? "0.f" : "1.f");
	}
	sbuf_adds(&s, "}\n");
	return sbuf_detach(&s);
}
