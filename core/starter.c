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
