/*
 * The ceilings of a perf row: see ceiling.h.
 */
#include "ceiling.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *ceiling_unit_name(enum ceiling_unit u)
{
	switch (u) {
#define CEILING_UNIT_NAME(id, name) case id: return name;
	CEILING_UNIT_LIST(CEILING_UNIT_NAME)
#undef CEILING_UNIT_NAME
	case UNIT_COUNT:
		break;
	}
	return "unknown";
}

/*
 * Dense flops per clock per SM (an FMA is 2), from NVIDIA's datasheets divided by SMs x boost
 * clock: V100 125 TFLOP/s f16 = 80 x 1.53 GHz x 1024; T4 65 = 40 x 1.59 x 1024; A100 312 f16,
 * 156 tf32, 19.5 f64 tensor = 108 x 1.41 x 2048, 1024, 128; RTX 3090/4090 f16 with f16
 * accumulation 1024, tf32 256, int8 2048; H100/H200 989 f16 at 1.83 GHz (4096 x 132 x 1.98 GHz,
 * the maximum clock, gives 1070: above it, as a ceiling must be), 494 tf32, 1979 int8, 67 f64
 * tensor and 67 f32 at 1.98 GHz (256). Newer than sm_90: B200's 2250 f16, 4500 int8, 1100 tf32
 * and 40 f64 over 148 SMs at 1.965 GHz stay under the last row.
 */
static const struct {
	int cc;                       /* major * 10 + minor; a row covers up to the next */
	double per_clock[UNIT_COUNT]; /* f64, f64 tensor, f32, tf32 tensor, f16 tensor, int8 tensor */
} arch_table[] = {
	{ 0, { 64, 0, 128, 0, 256, 512 } },
	{ 70, { 64, 0, 128, 0, 1024, 0 } },
	{ 75, { 4, 0, 128, 0, 1024, 2048 } },
	{ 80, { 64, 128, 128, 1024, 2048, 4096 } },
	{ 86, { 4, 0, 256, 256, 1024, 2048 } },
	{ 90, { 128, 256, 256, 2048, 4096, 8192 } },
	{ 100, { 256, 256, 256, 4096, 8192, 16384 } },
};

double ceiling_flops_per_clock(int cc_major, int cc_minor, enum ceiling_unit u)
{
	int cc = cc_major * 10 + cc_minor;
	size_t i, row = 0;

	if ((unsigned)u >= UNIT_COUNT)
		return 0;
	for (i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
		if (cc >= arch_table[i].cc)
			row = i;
	return arch_table[row].per_clock[u];
}

double ceiling_datasheet_tflops(const struct gpu_info *info, enum ceiling_unit u)
{
	if (!info || info->sms <= 0 || info->sm_clock_khz <= 0 || info->cc_major <= 0)
		return 0;
	return ceiling_flops_per_clock(info->cc_major, info->cc_minor, u) * info->sms * info->sm_clock_khz * 1e3 / 1e12;
}

/* The fastest of two units on this device. */
static enum ceiling_unit faster(const struct gpu_info *info, enum ceiling_unit a, enum ceiling_unit b, double *tflops)
{
	double ta = ceiling_datasheet_tflops(info, a), tb = ceiling_datasheet_tflops(info, b);

	*tflops = ta >= tb ? ta : tb;
	return ta >= tb ? a : b;
}

enum ceiling_unit ceiling_dtype_unit(const struct gpu_info *info, enum dtype dt, double *tflops)
{
	switch (dt) {
	case DT_F64:
		return faster(info, UNIT_F64_TENSOR, UNIT_F64, tflops);
	case DT_F32:
	case DT_C64:
		return faster(info, UNIT_TF32_TENSOR, UNIT_F32, tflops);
	case DT_F16:
	case DT_BF16:
		return faster(info, UNIT_F16_TENSOR, UNIT_F32, tflops);
	case DT_I8:
	case DT_U8:
		return faster(info, UNIT_I8_TENSOR, UNIT_F16_TENSOR, tflops);
	case DT_I16:
	case DT_I32:
	case DT_I64:
	case DT_BOOL:
	case DT_COUNT:
		break;
	}
	/* wider integers and booleans can be computed in any unit whose range suffices: the
	 * fastest one bounds them */
	return faster(info, UNIT_I8_TENSOR, UNIT_F16_TENSOR, tflops);
}

/* Integer buffers other than i8/u8 in a task with floating-point data are indices, masks or
 * counts, not what the arithmetic runs on. */
static int counts_for_unit(const struct task *t, enum dtype dt)
{
	int i;

	if (dtype_is_float(dt) || dt == DT_I8 || dt == DT_U8)
		return 1;
	for (i = 0; i < t->nargs; i++)
		if (t->args[i].dir != ARG_SCALAR && dtype_is_float(t->args[i].dtype))
			return 0;
	return 1;
}

enum ceiling_unit ceiling_task_unit(const struct task *t, const struct gpu_info *info, double *tflops)
{
	enum ceiling_unit best = UNIT_F32;
	double best_tf = -1, tf;
	int i;

	for (i = 0; i < t->nargs; i++) {
		enum ceiling_unit u;

		if (t->args[i].dir == ARG_SCALAR || !counts_for_unit(t, t->args[i].dtype))
			continue;
		u = ceiling_dtype_unit(info, t->args[i].dtype, &tf);
		if (tf > best_tf) {
			best = u;
			best_tf = tf;
		}
	}
	if (best_tf < 0)
		best = ceiling_dtype_unit(info, DT_F32, &best_tf);
	*tflops = best_tf;
	return best;
}

/* The calibration's figure for unit u where it measures that unit (the f32 FMA, the f16 tensor
 * cores through wmma), else 0: a floor of what the hardware does, which counts where it is
 * above the datasheet or the datasheet is unknown. */
static double calibrated_tflops(const struct calibration *cal, enum ceiling_unit u)
{
	double v = 0;

	if (cal && u == UNIT_F32)
		v = cal->fma_tflops;
	else if (cal && u == UNIT_F16_TENSOR)
		v = cal->tensor_tflops;
	return v > 0 ? v : 0;
}

void ceiling_init(struct ceiling *c, const struct gpu_info *info, const struct calibration *cal,
		  const struct task *t)
{
	double sheet, measured;

	memset(c, 0, sizeof(*c));
	c->gbps_from = "theoretical";
	c->gbps_base = info && info->peak_gbps > 0 ? info->peak_gbps : 0;
	if (cal && cal->copy_gbps > c->gbps_base) {
		c->gbps_base = cal->copy_gbps;
		c->gbps_from = "calibrated copy";
	}
	c->gbps = c->gbps_base * CEILING_BW_MARGIN;
	c->unit = ceiling_task_unit(t, info, &sheet);
	measured = calibrated_tflops(cal, c->unit);
	c->tflops_from = measured > sheet ? "calibrated" : "datasheet";
	c->tflops_base = measured > sheet ? measured : sheet;
	c->tflops = t->perf.flop_ceiling_off ? 0 : c->tflops_base * CEILING_FLOP_MARGIN;
}

int ceiling_partial(const struct task *t, const struct task_arg *a)
{
	int i;

	for (i = 0; i < t->perf.npartial_inputs; i++)
		if (!strcmp(t->perf.partial_inputs[i], a->name))
			return 1;
	return 0;
}

double ceiling_min_bytes(const struct task *t, const struct problem *pb)
{
	double bytes = 0;
	int i;

	for (i = 0; i < pb->nbufs; i++) {
		const struct task_arg *a = pb->bufs[i].arg;

		if (a->dir == ARG_OUT || !ceiling_partial(t, a))
			bytes += (double)pb->bufs[i].bytes;
	}
	return bytes;
}

int ceiling_check(const struct ceiling *c, double ms, double min_bytes, double flops, char *why, size_t whylen)
{
	double s = ms * 1e-3;

	if (!(s > 0) || !isfinite(s))
		return 0;
	if (c->gbps > 0 && min_bytes > 0 && min_bytes / s / 1e9 > c->gbps) {
		snprintf(why, whylen, "moving at least %.0f bytes in %.4g ms is %.0f GB/s, above the ceiling of %.0f GB/s "
			 "(%s %.0f GB/s x %.2f)", min_bytes, ms, min_bytes / s / 1e9, c->gbps, c->gbps_from, c->gbps_base,
			 CEILING_BW_MARGIN);
		return 1;
	}
	if (c->tflops > 0 && flops > 0 && flops / s / 1e12 > c->tflops) {
		snprintf(why, whylen, "%.4g flops in %.4g ms is %.1f TFLOP/s, above the ceiling of %.1f TFLOP/s (%s %s "
			 "peak %.1f TFLOP/s x %.2f)", flops, ms, flops / s / 1e12, c->tflops, c->tflops_from,
			 ceiling_unit_name(c->unit), c->tflops_base, CEILING_FLOP_MARGIN);
		return 1;
	}
	return 0;
}
