/*
 * fake_nvml.c - a stand-in for libnvidia-ml.so.1, built as a shared object for test_nvml.
 *
 * It has the entry points core/nvml.c loads, one device at PCI bus id 0000:19:00.0, and
 * answers from the environment at each call, so that a test can make any call fail:
 *   FAKE_NVML_FAIL              comma-separated: init, handle, handle-perm, sm, zero-sm, mem,
 *                               max, temp, power, events, throttle
 *   FAKE_NVML_SM                SM clock in MHz (default 1980)
 *   FAKE_NVML_REASONS           clocks event reasons, hex (default 0)
 *   FAKE_NVML_THROTTLE_REASONS  what the older throttle reasons call gives (default the same)
 * Built with FAKE_NVML_OLD it lacks nvmlDeviceGetCurrentClocksEventReasons, as drivers before
 * CUDA 12.2 do. fake_nvml_live() tells how many nvmlInit_v2 calls are not yet shut down.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;

struct fake_device {
	int unused;
};

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_DRIVER_NOT_LOADED 9

int fake_nvml_live(void);
const char *nvmlErrorString(nvmlReturn_t r);
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvmlDevice_t *dev);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned int *celsius);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *milliwatts);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev, unsigned long long *reasons);
#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *reasons);
#endif

static struct fake_device the_device;
static int live;

static int fails(const char *what)
{
	const char *list = getenv("FAKE_NVML_FAIL"), *p;
	size_t n = strlen(what);

	for (p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, what, n) && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

static unsigned long long env_hex(const char *name, unsigned long long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 16) : dflt;
}

int fake_nvml_live(void)
{
	return live;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlInit_v2(void)
{
	if (fails("init"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	live++;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
	live--;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvmlDevice_t *dev)
{
	unsigned domain = 0, bus, device, function;
	char end;

	if (fails("handle"))
		return NVML_ERROR_NOT_FOUND;
	if (fails("handle-perm"))
		return NVML_ERROR_NO_PERMISSION;
	if (sscanf(bus_id, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &end) != 4) {
		domain = 0;
		if (sscanf(bus_id, "%x:%x.%x%c", &bus, &device, &function, &end) != 3)
			return NVML_ERROR_NOT_FOUND;
	}
	if (domain != 0 || bus != 0x19 || device != 0 || function != 0)
		return NVML_ERROR_NOT_FOUND;
	*dev = &the_device;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
	if (dev != &the_device)
		return NVML_ERROR_NOT_FOUND;
	if (type == 1) {
		if (fails("sm"))
			return NVML_ERROR_NO_PERMISSION;
		*mhz = fails("zero-sm") ? 0 : (unsigned)strtoul(getenv("FAKE_NVML_SM") ? getenv("FAKE_NVML_SM") : "1980",
								NULL, 10);
		return NVML_SUCCESS;
	}
	if (type == 2) {
		if (fails("mem"))
			return NVML_ERROR_NOT_SUPPORTED;
		*mhz = 2619;
		return NVML_SUCCESS;
	}
	return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
	if (dev != &the_device || type != 1 || fails("max"))
		return NVML_ERROR_NOT_SUPPORTED;
	*mhz = 1980;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned int *celsius)
{
	if (dev != &the_device || sensor != 0 || fails("temp"))
		return NVML_ERROR_NOT_SUPPORTED;
	*celsius = 45;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *milliwatts)
{
	if (dev != &the_device || fails("power"))
		return NVML_ERROR_NO_PERMISSION;
	*milliwatts = 350500;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev, unsigned long long *reasons)
{
	if (dev != &the_device || fails("throttle"))
		return NVML_ERROR_NOT_SUPPORTED;
	*reasons = env_hex("FAKE_NVML_THROTTLE_REASONS", env_hex("FAKE_NVML_REASONS", 0));
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *reasons)
{
	if (dev != &the_device || fails("events"))
		return NVML_ERROR_NOT_SUPPORTED;
	*reasons = env_hex("FAKE_NVML_REASONS", 0);
	return NVML_SUCCESS;
}
#endif
