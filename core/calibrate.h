/*
 * calibrate.h - what this GPU has been seen to do: copy bandwidth, f32 FMA throughput and f16
 * tensor-core throughput, measured once (`kbx doctor --calibrate`) and stored per GPU in the
 * history, so that a candidate's GB/s and TFLOP/s read as a fraction of a peak measured on this
 * very board rather than of a datasheet figure.
 *
 * The kernels are CUDA source compiled with NVRTC for the device's architecture (no GPU needed
 * to compile them: calibrate_compile) and run through gpu.h on the worker's stream, each timed
 * with CUDA events: a warm-up, then the median of several repetitions.
 *
 *   copy    a float4 device-to-device copy of two buffers of min(1 GiB, a quarter of free
 *           memory) each, in two shapes (grid-stride and one float4 per thread), and
 *           cuMemcpyDtoD; the best of the three, counting read + write bytes, in 1e9 B/s
 *   fma     8 independent fmaf chains per thread in an unrolled loop, every SM filled many
 *           times over; an FMA counts 2 flops; 1e12 flop/s
 *   tensor  wmma 16x16x16, f16 inputs with f32 accumulation, 8 accumulators per warp kept in
 *           registers in a loop with no memory traffic (fragments loaded once); 2 flops per
 *           multiply-add. mma.sync as wmma compiles is not the fastest tensor path on Hopper
 *           (wgmma is), so this is below the datasheet's dense f16 figure. Not measured before
 *           sm_70 (no tensor cores): tensor_tflops < 0.
 *
 * Run the calibration only in the worker (worker_calibrate starts one); calibrate_device is
 * the worker's side. calibrate_annotator fills the fractions of each perf row in the worker.
 */
#ifndef KBX_CALIBRATE_H
#define KBX_CALIBRATE_H

#include <stddef.h>

#include "events.h"
#include "gpu.h"
#include "nvrtc.h"
#include "status.h"
#include "task.h"

struct calibration {
	char gpu_name[256];
	char gpu_uuid[64];        /* "GPU-...", "" when the driver did not give one */
	double copy_gbps;         /* device-to-device copy, read + write bytes per second / 1e9 */
	double fma_tflops;        /* f32 FMA, 2 flops each, per second / 1e12 */
	double tensor_tflops;     /* f16 x f16 + f32 with wmma; < 0 when not measured */
	double peak_gbps;         /* the theoretical memory bandwidth (gpu_info.peak_gbps), for comparison */
	double measured_at;       /* unix seconds */
	char kbx_version[32];
};

/* The calibration kernels' CUDA source. */
const char *calibrate_source(void);

/* Compile the kernels for sm_<arch> (as nvrtc_compile; out->ok says whether it compiled). */
enum kbx_status calibrate_compile(int arch, struct nvrtc_output *out);

/* Measure on an open device. Phases (with time limits) and one log line per measurement go to
 * progress (may be NULL, and so may each of its callbacks). */
enum kbx_status calibrate_run(struct gpu *g, const struct run_events *progress, struct calibration *out);

/* Open device `ordinal`, calibrate_run, close. */
enum kbx_status calibrate_device(int ordinal, const struct run_events *progress, struct calibration *out);

/* value / peak, or -1 when either is unknown (not positive, not finite). */
double calibrate_fraction(double value, double peak);

/* Whether a task's FLOPs are held against the tensor peak: when one of its buffers is f16 or
 * bf16. Otherwise the f32 FMA peak applies. */
int calibrate_task_tensor(const struct task *t);

/* Set p->bw_fraction (of copy_gbps) and p->flop_fraction (of tensor_tflops when tensor, else
 * fma_tflops); -1 where c is NULL or a figure is missing. */
void calibrate_annotate(const struct calibration *c, int tensor, struct perf_result *p);

/* A rate with its share of the calibration: "3012 (78%)", "41.2 (7.5%)", "0.01 (<0.1%)";
 * just "3012" without a fraction (fraction <= 0), "-" without a value (value < 0 or NaN). */
void calibrate_format_rate(char *buf, size_t len, double value, double fraction);

/* Parse doctor's --device: a CUDA ordinal, a decimal integer 0..1023. KBX_EPARSE naming the
 * text otherwise. */
enum kbx_status calibrate_parse_device(const char *text, int *out);

/*
 * A run_events that passes every event on to `to`, after filling each perf row's fractions
 * from `cal` (NULL: no calibration, the fractions are -1). The worker puts it between the
 * engine and the JSON writer.
 */
struct calibrate_annotator {
	const struct run_events *to;
	const struct calibration *cal;
	int tensor;               /* calibrate_task_tensor of the task */
};
struct run_events calibrate_annotator_events(struct calibrate_annotator *a);

#endif
