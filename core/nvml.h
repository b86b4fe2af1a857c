/*
 * nvml.h - GPU clock, temperature, power and slowdown readings through NVML, loaded at run time.
 *
 * A timing means little without the conditions it was taken under: the same kernel reads 10%
 * slower when the GPU is power-capped or hot. kbx therefore reads the SM clock (and a little
 * more) before and after each timed block and keeps it with the samples, so that history can tell
 * a real change from a change of conditions (core/timecmp.h).
 *
 * libnvidia-ml.so.1 is opened with dlopen, like the CUDA driver in gpu.c; kbx never links
 * -lnvidia-ml and needs no NVML header. Without the library (no driver, CI) nvml_open fails with
 * a message saying so and callers carry on with readings whose `valid` is 0.
 *
 * NVML numbers devices in its own order (by PCI bus by default), which need not be CUDA's
 * (CUDA_DEVICE_ORDER=FASTEST_FIRST, CUDA_VISIBLE_DEVICES), so the device is found by its PCI bus
 * id: the one cuDeviceGetPCIBusId gives, which gpu_probe and gpu_open store in
 * struct gpu_info's pci_bus_id.
 *
 * Use, around one timed block:
 *
 *     struct nvml *nv = NULL;
 *     struct clock_window w = { 0 };
 *     struct clock_summary cs;
 *
 *     if (nvml_open(info->pci_bus_id, &nv))
 *             log("no clock readings: %s", kbx_last_error());    // nv stays NULL
 *     ... warm-up ...
 *     nvml_read(nv, &w.before);       // NULL handle: valid = 0, no message needed
 *     ... timed repetitions ...
 *     nvml_read(nv, &w.after);
 *     clock_window_summarize(&w, &cs);
 *     nvml_close(nv);
 *
 * Read `before` after the warm-up, when the clocks have left their idle level, and `after` as
 * soon as the timed repetitions end: both readings then describe a busy GPU. Two readings are
 * a sample of the window, not a record of it: a slowdown that came and went between them is
 * not seen. Reading costs tens of microseconds of host time and no GPU time.
 *
 * One handle belongs to one thread at a time; separate handles may be used from separate
 * threads (NVML counts nvmlInit calls and is thread safe).
 */
#ifndef KBX_NVML_H
#define KBX_NVML_H

#include <stddef.h>

#include "status.h"

/*
 * Why the clocks are where they are: NVML's clocks event (formerly "throttle") reasons, same bit
 * values, so a stored mask is NVML's own. X(id, bit, name, slowdown): slowdown says whether the
 * reason means the GPU ran slower than it would have under the same load otherwise. Idle and
 * the applications-clocks setting describe a choice, not a slowdown; sync boost and the display
 * clock setting are rare on the GPUs kbx targets and show in the SM clock when they matter.
 */
#define CLOCK_REASON_LIST(X) \
	X(CLOCK_REASON_GPU_IDLE, 0x1ULL, "idle", 0) \
	X(CLOCK_REASON_APP_CLOCKS, 0x2ULL, "applications clocks", 0) \
	X(CLOCK_REASON_SW_POWER_CAP, 0x4ULL, "power cap", 1) \
	X(CLOCK_REASON_HW_SLOWDOWN, 0x8ULL, "hw slowdown", 1) \
	X(CLOCK_REASON_SYNC_BOOST, 0x10ULL, "sync boost", 0) \
	X(CLOCK_REASON_SW_THERMAL, 0x20ULL, "thermal", 1) \
	X(CLOCK_REASON_HW_THERMAL, 0x40ULL, "hw thermal", 1) \
	X(CLOCK_REASON_HW_POWER_BRAKE, 0x80ULL, "power brake", 1) \
	X(CLOCK_REASON_DISPLAY_CLOCKS, 0x100ULL, "display clocks", 0)

enum {
#define CLOCK_REASON_ENUM(id, bit, name, slowdown) id = bit,
	CLOCK_REASON_LIST(CLOCK_REASON_ENUM)
#undef CLOCK_REASON_ENUM
};

/* The reasons that slow a GPU down: power cap, hw slowdown, thermal, hw thermal, power brake. */
#define CLOCK_REASON_SLOWDOWN_BIT(id, bit, name, slowdown) | ((slowdown) ? (bit) : 0ULL)
#define CLOCK_REASONS_SLOWDOWN (0ULL CLOCK_REASON_LIST(CLOCK_REASON_SLOWDOWN_BIT))

/* 1 when any slowdown reason is set in `reasons`. */
int clock_reasons_slowdown(unsigned long long reasons);

/*
 * The slowdown reasons in `reasons` as a short text, "power cap, thermal", "" when none (bits
 * that are no slowdown, and bits NVML may add later, are left out). "hw slowdown" is left out
 * when "hw thermal" or "power brake" is there: NVML sets it along with them. Returns buf,
 * always terminated and cut to len; "" (a literal) when len is 0.
 */
const char *clock_reasons_text(unsigned long long reasons, char *buf, size_t len);

/*
 * One reading. A figure NVML could not give (no permission, not supported on this board) is 0;
 * valid is 1 when at least the SM clock was read, reasons_valid when the reasons were.
 */
struct clock_reading {
	double sm_mhz, mem_mhz, max_sm_mhz;
	double temp_c, power_w;
	unsigned long long reasons;
	int reasons_valid;
	int valid;
};

/*
 * 1 when `id` is a PCI bus id as CUDA and NVML write it: [domain:]bus:device.function in hex,
 * "0000:19:00.0" or "00000000:19:00.0" (domain up to 8 digits, bus and device up to 2,
 * function 1), nothing before or after.
 */
int nvml_bus_id_ok(const char *id);

struct nvml;

/*
 * Load NVML, initialise it and find the device with PCI bus id `pci_bus_id`. On failure *out is
 * NULL and the message says why: KBX_ENOTFOUND when the library or one of its required entry
 * points is missing or no device has that bus id, KBX_ENODEVICE when nvmlInit fails (no
 * driver loaded), KBX_EINVAL for a malformed bus id.
 */
enum kbx_status nvml_open(const char *pci_bus_id, struct nvml **out);
/* The same with another library than libnvidia-ml.so.1: a path, or a name for dlopen to find. */
enum kbx_status nvml_open_library(const char *library, const char *pci_bus_id, struct nvml **out);

/*
 * Read the current SM and memory clocks, the device's maximum SM clock, the GPU temperature,
 * the power draw and the clocks event reasons. *out is filled in any case (valid = 0 on
 * failure); KBX_EIO when the SM clock could not be read, with the NVML error in the message.
 * A NULL handle gives KBX_ENOTFOUND without touching the last error message, so that callers
 * that failed to open need no test of their own.
 */
enum kbx_status nvml_read(struct nvml *nv, struct clock_reading *out);

/* The bus id the handle was opened for. */
const char *nvml_bus_id(const struct nvml *nv);

/* Shut NVML down for this handle and unload it; NULL is fine. */
void nvml_close(struct nvml *nv);

/* Readings taken just before and just after a timed block. */
struct clock_window {
	struct clock_reading before, after;
};

/*
 * What the window says, over its valid readings: the mean and the lowest SM clock, the mean
 * memory clock, the device's maximum SM clock, the highest temperature and power, and the union
 * of the reasons. valid is the number of valid readings (0, 1 or 2); with none every figure is
 * 0. A figure that only one reading has comes from that reading.
 */
struct clock_summary {
	double sm_mhz, min_sm_mhz, mem_mhz, max_sm_mhz;
	double temp_c, power_w;
	unsigned long long reasons;
	int reasons_valid;
	int valid;
};

void clock_window_summarize(const struct clock_window *w, struct clock_summary *out);

#endif
