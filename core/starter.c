/*
 * starter.c - the starter skeleton (see starter.h).
 */
#include "starter.h"

#include <stdlib.h>
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

/* ---- the Python skeleton ------------------------------------------------------------------- */

static const char *torch_dtype(enum dtype dt)
{
	switch (dt) {
	case DT_F32: return "torch.float32";
	case DT_F64: return "torch.float64";
	case DT_F16: return "torch.float16";
	case DT_BF16: return "torch.bfloat16";
	case DT_I8: return "torch.int8";
	case DT_U8: return "torch.uint8";
	case DT_BOOL: return "torch.bool";
	case DT_I16: return "torch.int16";
	case DT_I32: return "torch.int32";
	case DT_I64: return "torch.int64";
	case DT_C64: return "torch.complex64";
	case DT_COUNT: break;
	}
	return "torch.float32";
}

/* The first parameter of a signature "(a, b=1, *, c=None)" that has no default and is not '*',
 * '*args', '**kw' or '/': the name, copied; NULL when there is none. Commas inside brackets and
 * strings of a default do not separate parameters. */
static char *first_required_param(const char *sig)
{
	const char *p = sig + 1, *start = p;
	int depth = 0;
	char quote = 0;

	for (;; p++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == quote)
				quote = 0;
			else if (!*p)
				return NULL;
			continue;
		}
		if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ')' || *p == ']' || *p == '}') && depth > 0) {
			depth--;
		} else if (!*p || (depth == 0 && (*p == ',' || *p == ')'))) {
			const char *end = p;

			while (start < end && (*start == ' ' || *start == '\t'))
				start++;
			while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
			if (end > start && *start != '*' && *start != '/' && !memchr(start, '=', (size_t)(end - start)))
				return xstrndup(start, (size_t)(end - start));
			if (!*p || *p == ')')
				return NULL;
			start = p + 1;
		}
	}
}

/* "# "-prefixed lines of at most `width` columns holding text's words. */
static void add_comment(struct sbuf *s, const char *text, int width)
{
	int col = 0;

	while (*text) {
		size_t n;

		while (*text == ' ')
			text++;
		n = strcspn(text, " ");
		if (!n)
			break;
		if (col && col + 1 + (int)n > width) {
			sbuf_adds(s, "\n");
			col = 0;
		}
		sbuf_addf(s, "%s%.*s", col ? " " : "# ", (int)n, text);
		col += (col ? 1 : 2) + (int)n;
		text += n;
	}
	if (col)
		sbuf_adds(s, "\n");
}

static void add_arg_table(struct sbuf *s, const struct task *t)
{
	int i, d;

	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];

		sbuf_addf(s, "#   %-12s %-6s %s", a->name, arg_dir_name(a->dir), dtype_name(a->dtype));
		if (a->dir != ARG_SCALAR) {
			sbuf_addf(s, "%*s[", 6 - (int)strlen(dtype_name(a->dtype)), "");
			for (d = 0; d < a->ndim; d++)
				sbuf_addf(s, "%s%s", d ? ", " : "", a->shape[d]);
			sbuf_adds(s, "]");
		}
		sbuf_adds(s, "\n");
	}
}

static void add_kernel(struct sbuf *s, const char *kernel, int has_src)
{
	sbuf_addf(s, "@triton.jit\ndef %s(%sout_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n", kernel,
		  has_src ? "src_ptr, " : "");
	sbuf_adds(s, "    pid = tl.program_id(axis=0)\n"
		     "    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
		     "    mask = offsets < n_elements\n");
	if (has_src)
		sbuf_adds(s, "    x = tl.load(src_ptr + offsets, mask=mask)\n"
			     "    # TODO: the math goes here\n"
			     "    y = x\n");
	else
		sbuf_adds(s, "    # TODO: the math goes here\n"
			     "    y = tl.zeros([BLOCK_SIZE], dtype=tl.float32)\n");
	sbuf_adds(s, "    tl.store(out_ptr + offsets, y, mask=mask)\n\n\n");
}

char *starter_python(const struct task *t)
{
	struct sbuf s = SBUF_INIT;
	char *kernel, *src, *head;
	const struct task_arg *first = NULL;
	int i, nout = 0;

	if (!t->py_entry || !t->py_signature)
		return NULL;
	src = first_required_param(t->py_signature);
	kernel = xasprintf("%s_kernel", t->py_entry);
	head = xasprintf("Candidate for %s in KernelBenchX's format (kbx run %s FILE.py): kbx calls %s%s "
			 "with its inputs as CUDA tensors, as KernelBenchX's test does.", t->id, t->id, t->py_entry,
			 t->py_signature);
	add_comment(&s, head, 96);
	free(head);
	sbuf_adds(&s, "#\n");
	add_comment(&s, t->summary ? t->summary : "", 96);
	sbuf_adds(&s, "#\n");
	sbuf_adds(&s, "# The task in kbx's terms (kbx show for its cases and tolerance):\n");
	add_arg_table(&s, t);
	sbuf_adds(&s, "\nimport torch\nimport triton\nimport triton.language as tl\n\n\n");
	add_kernel(&s, kernel, src != NULL);

	sbuf_addf(&s, "def %s%s:\n", t->py_entry, t->py_signature);
	if (src)
		sbuf_addf(&s, "    src = %s.contiguous()\n", src);
	for (i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];
		int d;

		if (a->dir != ARG_OUT && a->dir != ARG_INOUT)
			continue;
		if (!first)
			first = a;
		nout++;
		sbuf_addf(&s, "    # TODO: '%s' is %s [", a->name, dtype_name(a->dtype));
		for (d = 0; d < a->ndim; d++)
			sbuf_addf(&s, "%s%s", d ? ", " : "", a->shape[d]);
		sbuf_adds(&s, "] in kbx's terms: give it its shape\n");
		if (src)
			sbuf_addf(&s, "    out_%s = torch.empty_like(src, dtype=%s)\n", a->name, torch_dtype(a->dtype));
		else
			sbuf_addf(&s, "    out_%s = torch.empty(1, dtype=%s, device=\"cuda\")\n", a->name,
				  torch_dtype(a->dtype));
	}
	if (first) {
		sbuf_addf(&s, "    n_elements = out_%s.numel()\n", first->name);
		sbuf_adds(&s, "    grid = lambda meta: (triton.cdiv(n_elements, meta[\"BLOCK_SIZE\"]),)\n");
		sbuf_addf(&s, "    %s[grid](%sout_%s, n_elements, BLOCK_SIZE=1024)\n", kernel, src ? "src, " : "",
			  first->name);
	}
	sbuf_adds(&s, "    return ");
	for (i = 0; i < t->nargs; i++)
		if (t->args[i].dir == ARG_OUT || t->args[i].dir == ARG_INOUT)
			sbuf_addf(&s, "%sout_%s", &t->args[i] == first ? "" : ", ", t->args[i].name);
	if (nout > 1)
		sbuf_addf(&s, "  # TODO: what KernelBenchX's %s returns", t->py_entry);
	else if (!nout)
		sbuf_adds(&s, "None");
	sbuf_adds(&s, "\n");
	free(kernel);
	free(src);
	return sbuf_detach(&s);
}
