/*
 * nvml.c - NVML behind nvml.h, opened with dlopen.
 *
 * The few types, constants and prototypes kbx needs are written out here from NVML's documented
 * ABI (nvmlReturn_t and the enums are int-sized, a device is an opaque pointer), because no NVML
 * header is installed where kbx builds. Each handle loads and initialises the library on its
 * own: NVML counts nvmlInit_v2 against nvmlShutdown, and dlopen counts loads, so handles do not
 * need to know about each other and there is no process-wide state to guard.
 */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_FOUND 6

/* nvmlClockType_t and nvmlTemperatureSensors_t */
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

/*
 * X(name, required, parameter list). The clocks event reasons call replaced the throttle
 * reasons one in drivers of CUDA 12.2; older drivers have only the throttle one and the newest
 * may drop it, so both are optional and nvml_read takes whichever answers.
 */
#define NVML_ENTRY_POINTS(X) \
	X(nvmlInit_v2, 1, (void)) \
	X(nvmlShutdown, 1, (void)) \
	X(nvmlDeviceGetHandleByPciBusId_v2, 1, (const char *bus_id, nvml_device *dev)) \
	X(nvmlDeviceGetClockInfo, 1, (nvml_device dev, int type, unsigned int *mhz)) \
	X(nvmlDeviceGetMaxClockInfo, 0, (nvml_device dev, int type, unsigned int *mhz)) \
	X(nvmlDeviceGetTemperature, 0, (nvml_device dev, int sensor, unsigned int *celsius)) \
	X(nvmlDeviceGetPowerUsage, 0, (nvml_device dev, unsigned int *milliwatts)) \
	X(nvmlDeviceGetCurrentClocksEventReasons, 0, (nvml_device dev, unsigned long long *reasons)) \
	X(nvmlDeviceGetCurrentClocksThrottleReasons, 0, (nvml_device dev, unsigned long long *reasons))

struct nvml {
	void *lib;
	nvml_device dev;
	char bus_id[32];
	const char *(*error_string)(nvml_return r);
#define NVML_FIELD(name, required, params) nvml_return (*f_##name) params;
	NVML_ENTRY_POINTS(NVML_FIELD)
#undef NVML_FIELD
};

/* ---- reasons ------------------------------------------------------------------------------ */

int clock_reasons_slowdown(unsigned long long reasons)
{
	return (reasons & CLOCK_REASONS_SLOWDOWN) != 0;
}

const char *clock_reasons_text(unsigned long long reasons, char *buf, size_t len)
{
	size_t used = 0;

	if (!buf || !len)
		return "";
	buf[0] = '\0';
	/* NVML raises hw slowdown together with the hw reason that caused it; naming both says less. */
	if (reasons & (CLOCK_REASON_HW_THERMAL | CLOCK_REASON_HW_POWER_BRAKE))
		reasons &= ~(unsigned long long)CLOCK_REASON_HW_SLOWDOWN;
#define CLOCK_REASON_TEXT(id, bit, name, slowdown) \
	if ((slowdown) && (reasons & (bit)) && used < len) { \
		int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name); \
		used = k < 0 ? len : used + (size_t)k; \
	}
	CLOCK_REASON_LIST(CLOCK_REASON_TEXT)
#undef CLOCK_REASON_TEXT
	return buf;
}

/* ---- bus ids ------------------------------------------------------------------------------ */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads 1..maxdigits hex digits at *p into *v; 0 when there are none or too many. */
static int hex_field(const char **p, int maxdigits, unsigned long *v)
{
	int n = 0, d;

	*v = 0;
	while ((d = hex_value(**p)) >= 0) {
		if (++n > maxdigits)
			return 0;
		*v = *v * 16 + (unsigned long)d;
		(*p)++;
	}
	return n > 0;
}

int nvml_bus_id_ok(const char *id)
{
	const char *p = id, *second;
	unsigned long a, b, dev, fn;

	if (!id || !hex_field(&p, 8, &a) || *p++ != ':')
		return 0;
	second = p;
	if (!hex_field(&p, 2, &b))
		return 0;
	if (*p == ':') {
		/* domain:bus:device.function */
		p++;
		if (!hex_field(&p, 2, &dev))
			return 0;
	} else {
		/* bus:device.function: the first field was the bus, so at most two digits */
		if (second - id - 1 > 2)
			return 0;
		dev = b;
	}
	if (*p++ != '.' || !hex_field(&p, 1, &fn) || *p)
		return 0;
	/* A PCI device number has five bits and a function three. */
	return dev <= 0x1f && fn <= 7;
}

/* ---- the library -------------------------------------------------------------------------- */

/* NVML's own text for an error where the library gives one ("Insufficient Permissions"). */
static const char *nvml_describe(const struct nvml *nv, nvml_return r, char *buf, size_t len)
{
	const char *s = nv && nv->error_string ? nv->error_string(r) : NULL;

	if (s && s[0])
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "NVML error %d", r);
	return buf;
}

static enum kbx_status nvml_fail(const struct nvml *nv, enum kbx_status st, nvml_return r, const char *call)
{
	char what[128];

	return kbx_error(st, "%s on '%s': %s", call, nv->bus_id, nvml_describe(nv, r, what, sizeof(what)));
}

enum kbx_status nvml_open_library(const char *library, const char *pci_bus_id, struct nvml **out)
{
	struct nvml *nv;
	const char *e;
	nvml_return r;
	enum kbx_status st;

	*out = NULL;
	if (!library || !library[0])
		return kbx_error(KBX_EINVAL, "no NVML library named");
	if (!pci_bus_id || !pci_bus_id[0])
		return kbx_error(KBX_EINVAL, "no PCI bus id to find the device in NVML");
	if (!nvml_bus_id_ok(pci_bus_id))
		return kbx_error(KBX_EINVAL, "malformed PCI bus id '%.40s' (expected like '0000:19:00.0')", pci_bus_id);
	nv = xcalloc(1, sizeof(*nv));
	snprintf(nv->bus_id, sizeof(nv->bus_id), "%s", pci_bus_id);
	dlerror();
	nv->lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (!nv->lib) {
		e = dlerror();
		free(nv);
		return kbx_error(KBX_ENOTFOUND, "cannot load NVML '%s' (%s)", library, e ? e : "not found");
	}
	*(void **)&nv->error_string = dlsym(nv->lib, "nvmlErrorString");
#define NVML_RESOLVE(name, required, params) \
	*(void **)&nv->f_##name = dlsym(nv->lib, #name); \
	if ((required) && !nv->f_##name) { \
		st = kbx_error(KBX_ENOTFOUND, "NVML '%s' has no '%s'", library, #name); \
		goto unload; \
	}
	NVML_ENTRY_POINTS(NVML_RESOLVE)
#undef NVML_RESOLVE

	r = nv->f_nvmlInit_v2();
	if (r != NVML_SUCCESS) {
		char what[128];

		st = kbx_error(KBX_ENODEVICE, "nvmlInit: %s", nvml_describe(nv, r, what, sizeof(what)));
		goto unload;
	}
	r = nv->f_nvmlDeviceGetHandleByPciBusId_v2(nv->bus_id, &nv->dev);
	if (r != NVML_SUCCESS) {
		if (r == NVML_ERROR_NOT_FOUND)
			st = kbx_error(KBX_ENOTFOUND, "NVML has no device at PCI bus id '%s'", nv->bus_id);
		else
			st = nvml_fail(nv, KBX_ENODEVICE, r, "nvmlDeviceGetHandleByPciBusId");
		nv->f_nvmlShutdown();
		goto unload;
	}
	*out = nv;
	return KBX_OK;

unload:
	dlclose(nv->lib);
	free(nv);
	return st;
}

enum kbx_status nvml_open(const char *pci_bus_id, struct nvml **out)
{
	return nvml_open_library("libnvidia-ml.so.1", pci_bus_id, out);
}

const char *nvml_bus_id(const struct nvml *nv)
{
	return nv ? nv->bus_id : "";
}

void nvml_close(struct nvml *nv)
{
	if (!nv)
		return;
	nv->f_nvmlShutdown();
	dlclose(nv->lib);
	free(nv);
}

/* Reasons from the newer call, or from the older one when the newer is missing or refuses. */
static int read_reasons(struct nvml *nv, unsigned long long *reasons)
{
	if (nv->f_nvmlDeviceGetCurrentClocksEventReasons &&
	    nv->f_nvmlDeviceGetCurrentClocksEventReasons(nv->dev, reasons) == NVML_SUCCESS)
		return 1;
	if (nv->f_nvmlDeviceGetCurrentClocksThrottleReasons &&
	    nv->f_nvmlDeviceGetCurrentClocksThrottleReasons(nv->dev, reasons) == NVML_SUCCESS)
		return 1;
	*reasons = 0;
	return 0;
}

enum kbx_status nvml_read(struct nvml *nv, struct clock_reading *out)
{
	unsigned int v;
	unsigned long long reasons;
	nvml_return r;

	memset(out, 0, sizeof(*out));
	if (!nv)
		return KBX_ENOTFOUND;
	r = nv->f_nvmlDeviceGetClockInfo(nv->dev, NVML_CLOCK_SM, &v);
	if (r != NVML_SUCCESS)
		return nvml_fail(nv, KBX_EIO, r, "nvmlDeviceGetClockInfo (SM)");
	/* 0 MHz is no clock a running GPU has; reading it as one would turn a glitch into a 100% drop. */
	if (v == 0)
		return kbx_error(KBX_EIO, "nvmlDeviceGetClockInfo (SM) on '%s': 0 MHz", nv->bus_id);
	out->sm_mhz = v;
	/* The rest is optional: boards and permissions differ, and the SM clock is what matters. */
	if (nv->f_nvmlDeviceGetClockInfo(nv->dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
		out->mem_mhz = v;
	if (nv->f_nvmlDeviceGetMaxClockInfo &&
	    nv->f_nvmlDeviceGetMaxClockInfo(nv->dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
		out->max_sm_mhz = v;
	if (nv->f_nvmlDeviceGetTemperature &&
	    nv->f_nvmlDeviceGetTemperature(nv->dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
		out->temp_c = v;
	if (nv->f_nvmlDeviceGetPowerUsage && nv->f_nvmlDeviceGetPowerUsage(nv->dev, &v) == NVML_SUCCESS)
		out->power_w = v / 1000.0;
	out->reasons_valid = read_reasons(nv, &reasons);
	out->reasons = reasons;
	out->valid = 1;
	return KBX_OK;
}

/* ---- windows ------------------------------------------------------------------------------ */

static double max2(double a, double b)
{
	return a > b ? a : b;
}

void clock_window_summarize(const struct clock_window *w, struct clock_summary *out)
{
	const struct clock_reading *rs[2];
	double sm = 0, mem = 0;
	int i, nmem = 0;

	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	rs[0] = &w->before;
	rs[1] = &w->after;
	for (i = 0; i < 2; i++) {
		const struct clock_reading *r = rs[i];

		if (!r->valid || !(r->sm_mhz > 0))
			continue;
		sm += r->sm_mhz;
		if (!out->valid || r->sm_mhz < out->min_sm_mhz)
			out->min_sm_mhz = r->sm_mhz;
		out->valid++;
		if (r->mem_mhz > 0) {
			mem += r->mem_mhz;
			nmem++;
		}
		out->max_sm_mhz = max2(out->max_sm_mhz, r->max_sm_mhz);
		out->temp_c = max2(out->temp_c, r->temp_c);
		out->power_w = max2(out->power_w, r->power_w);
		if (r->reasons_valid) {
			out->reasons |= r->reasons;
			out->reasons_valid = 1;
		}
	}
	if (out->valid)
		out->sm_mhz = sm / out->valid;
	if (nmem)
		out->mem_mhz = mem / nmem;
}
