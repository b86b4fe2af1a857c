/*
 * ceiling.h - the fastest a perf row can possibly run, and whether a timing beats it.
 *
 * A timing faster than the hardware allows is not a fast kernel: work was skipped or a result
 * replayed (tests/adversarial). Two ceilings, both upper bounds that an honest kernel cannot reach:
 *
 *   bytes   the bytes a correct kernel must at least move: every out and inout buffer, plus every
 *           in buffer except those the task declares partially read ([perf] partial_inputs, for
 *           index_select's source, a triangular factor's unused half, ...; an inout named there
 *           is left out too). Held against the higher of the calibrated copy bandwidth and the
 *           device's theoretical bandwidth, times CEILING_BW_MARGIN. The task's own bytes formula
 *           cannot be the floor: KernelBenchX counts PyTorch's unfused traffic.
 *   flops   the task's flops formula (unless [perf] flop_ceiling = off: REASON says it counts
 *           work a correct kernel may avoid), held against the peak of the fastest unit that the
 *           task's dtypes can use (tensor cores included: f16/bf16 tensor, int8 tensor, TF32 for
 *           f32 since split-TF32 kernels reach f32 accuracy, f64 tensor), from the datasheet
 *           (flops per clock per SM by compute capability x SMs x the maximum SM clock) or the
 *           calibration, whichever is higher, times CEILING_FLOP_MARGIN.
 *
 * Pure arithmetic on gpu_info, calibration, task and problem: no GPU needed (tests/core/test_ceiling.c).
 */
#ifndef KBX_CEILING_H
#define KBX_CEILING_H

#include <stddef.h>

#include "calibrate.h"
#include "gpu.h"
#include "problem.h"
#include "task.h"

#define CEILING_BW_MARGIN 1.15
#define CEILING_FLOP_MARGIN 1.10

/* The execution units whose peaks bound the FLOP rate; X(id, name). */
#define CEILING_UNIT_LIST(X) \
	X(UNIT_F64, "f64") \
	X(UNIT_F64_TENSOR, "f64 tensor") \
	X(UNIT_F32, "f32") \
	X(UNIT_TF32_TENSOR, "tf32 tensor") \
	X(UNIT_F16_TENSOR, "f16/bf16 tensor") \
	X(UNIT_I8_TENSOR, "int8 tensor")

enum ceiling_unit {
#define CEILING_UNIT_ENUM(id, name) id,
	CEILING_UNIT_LIST(CEILING_UNIT_ENUM)
#undef CEILING_UNIT_ENUM
	UNIT_COUNT
};

const char *ceiling_unit_name(enum ceiling_unit u);

/* Dense flops per clock per SM of unit u on compute capability major.minor (0: no such unit).
 * Architectures newer than the table get generous figures (above every current datasheet). */
double ceiling_flops_per_clock(int cc_major, int cc_minor, enum ceiling_unit u);

/* The datasheet-like peak of unit u in TFLOP/s: flops per clock x SMs x the maximum SM clock;
 * 0 when any of them is unknown. */
double ceiling_datasheet_tflops(const struct gpu_info *info, enum ceiling_unit u);

/* The fastest unit that data of dtype dt can go through and keep the precision it needs, on
 * this device (f32 falls back to the f32 FMA before sm_80, f64 likewise); *tflops its peak. */
enum ceiling_unit ceiling_dtype_unit(const struct gpu_info *info, enum dtype dt, double *tflops);

/* The fastest unit over the task's buffer dtypes (ties: the first buffer's); integer buffers
 * other than i8/u8 count only in a task without floating-point buffers (elsewhere they are
 * indices and masks). */
enum ceiling_unit ceiling_task_unit(const struct task *t, const struct gpu_info *info, double *tflops);

/* The device's ceilings for task t, computed once per run. A figure <= 0 means no ceiling. */
struct ceiling {
	double gbps, gbps_base;       /* the ceiling (margin included) and the figure it came from */
	double tflops, tflops_base;   /* the same; 0 when the task's flop_ceiling is off */
	enum ceiling_unit unit;
	const char *gbps_from;        /* "calibrated copy" or "theoretical" */
	const char *tflops_from;      /* "calibrated" or "datasheet" */
};

/* cal may be NULL (no calibration stored for this GPU). */
void ceiling_init(struct ceiling *c, const struct gpu_info *info, const struct calibration *cal,
		  const struct task *t);

/* Whether input or inout arg a is named in the task's [perf] partial_inputs. */
int ceiling_partial(const struct task *t, const struct task_arg *a);

/* The bytes a correct kernel must at least move for problem pb (see above). */
double ceiling_min_bytes(const struct task *t, const struct problem *pb);

/*
 * Judge one timing: ms per call, the problem's least bytes and its flops (< 0: unknown). 0 when
 * the timing is possible; 1 when it beats a ceiling, with a one-line reason in why
 * ("moving at least 402653184 bytes in 0.002 ms is 201326.6 GB/s, above the ceiling of 5536 GB/s
 * (datasheet 4814 GB/s x 1.15)").
 */
int ceiling_check(const struct ceiling *c, double ms, double min_bytes, double flops, char *why, size_t whylen);

#endif
