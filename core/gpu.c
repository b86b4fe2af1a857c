/*
 * gpu.c - the CUDA Driver API behind gpu.h.
 *
 * libcuda.so.1 is opened at run time and every entry point is resolved through
 * cuGetProcAddress with an explicit CUDA version per symbol, against function types written
 * out here for the ABI of that version. Asking by version (rather than dlsym of the
 * versioned names, or the typedefs of whatever cuda.h the build saw) keeps the binary
 * correct on any driver from CUDA 12.0 on, whichever toolkit it was built with: a
 * newer cuda.h renames cuCtxCreate or cuEventElapsedTime to variants with other signatures.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* dladdr */
#endif

#include "gpu.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void gpu_format_uuid(const unsigned char bytes[16], char *out, size_t len)
{
	const unsigned char *b = bytes;

	snprintf(out, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

#ifdef HAVE_CUDA

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>

/* The ABI every entry point is asked for unless the table says otherwise. */
#define GPU_ABI 12000

/*
 * X(name, cuda version of the ABI wanted, required, parameter list). Optional entry points
 * (required = 0) may be missing from an older driver; the code checks them before use.
 */
#define GPU_ENTRY_POINTS(X) \
	X(cuGetErrorName, GPU_ABI, 1, (CUresult e, const char **s)) \
	X(cuGetErrorString, GPU_ABI, 1, (CUresult e, const char **s)) \
	X(cuInit, GPU_ABI, 1, (unsigned int flags)) \
	X(cuDriverGetVersion, GPU_ABI, 1, (int *version)) \
	X(cuDeviceGetCount, GPU_ABI, 1, (int *count)) \
	X(cuDeviceGet, GPU_ABI, 1, (CUdevice *dev, int ordinal)) \
	X(cuDeviceGetName, GPU_ABI, 1, (char *name, int len, CUdevice dev)) \
	X(cuDeviceGetPCIBusId, GPU_ABI, 0, (char *bus_id, int len, CUdevice dev)) \
	X(cuDeviceGetAttribute, GPU_ABI, 1, (int *value, CUdevice_attribute attr, CUdevice dev)) \
	X(cuDeviceTotalMem, GPU_ABI, 1, (size_t *bytes, CUdevice dev)) \
	X(cuDeviceGetUuid, GPU_ABI, 0, (CUuuid *uuid, CUdevice dev)) \
	X(cuDevicePrimaryCtxRetain, GPU_ABI, 1, (CUcontext *ctx, CUdevice dev)) \
	X(cuDevicePrimaryCtxRelease, GPU_ABI, 1, (CUdevice dev)) \
	X(cuCtxSetCurrent, GPU_ABI, 1, (CUcontext ctx)) \
	X(cuCtxSynchronize, GPU_ABI, 1, (void)) \
	X(cuStreamCreate, GPU_ABI, 1, (CUstream *s, unsigned int flags)) \
	X(cuStreamDestroy, GPU_ABI, 1, (CUstream s)) \
	X(cuStreamSynchronize, GPU_ABI, 1, (CUstream s)) \
	X(cuMemAlloc, GPU_ABI, 1, (CUdeviceptr *p, size_t bytes)) \
	X(cuMemFree, GPU_ABI, 1, (CUdeviceptr p)) \
	X(cuMemGetInfo, GPU_ABI, 0, (size_t *free_bytes, size_t *total_bytes)) \
	X(cuMemHostAlloc, GPU_ABI, 0, (void **p, size_t bytes, unsigned int flags)) \
	X(cuMemHostGetDevicePointer, GPU_ABI, 0, (CUdeviceptr *dp, void *p, unsigned int flags)) \
	X(cuMemFreeHost, GPU_ABI, 0, (void *p)) \
	X(cuMemcpyHtoDAsync, GPU_ABI, 1, (CUdeviceptr dst, const void *src, size_t n, CUstream s)) \
	X(cuMemcpyDtoHAsync, GPU_ABI, 1, (void *dst, CUdeviceptr src, size_t n, CUstream s)) \
	X(cuMemcpyDtoDAsync, GPU_ABI, 1, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)) \
	X(cuMemsetD8Async, GPU_ABI, 1, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s)) \
	X(cuMemsetD32Async, GPU_ABI, 1, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s)) \
	X(cuModuleLoadDataEx, GPU_ABI, 1, (CUmodule *m, const void *image, unsigned int nopts, \
					   CUjit_option *opts, void **vals)) \
	X(cuModuleUnload, GPU_ABI, 1, (CUmodule m)) \
	X(cuModuleGetFunction, GPU_ABI, 1, (CUfunction *f, CUmodule m, const char *name)) \
	X(cuModuleGetGlobal, GPU_ABI, 0, (CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name)) \
	X(cuFuncGetParamInfo, 12040, 0, (CUfunction f, size_t index, size_t *offset, size_t *size)) \
	X(cuFuncSetAttribute, GPU_ABI, 1, (CUfunction f, CUfunction_attribute attr, int value)) \
	X(cuLaunchKernel, GPU_ABI, 1, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, \
				       unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s, \
				       void **params, void **extra)) \
	X(cuLaunchCooperativeKernel, GPU_ABI, 1, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, \
						  unsigned bx, unsigned by, unsigned bz, unsigned smem, \
						  CUstream s, void **params)) \
	X(cuEventCreate, GPU_ABI, 1, (CUevent *e, unsigned int flags)) \
	X(cuEventRecord, GPU_ABI, 1, (CUevent e, CUstream s)) \
	X(cuEventSynchronize, GPU_ABI, 1, (CUevent e)) \
	X(cuEventElapsedTime, GPU_ABI, 1, (float *ms, CUevent start, CUevent end)) \
	X(cuEventDestroy, GPU_ABI, 1, (CUevent e)) \
	X(cuCtxResetPersistingL2Cache, GPU_ABI, 0, (void))

/* Fields are named f_<entry point> so that cuda.h's renaming macros never touch them. */
static struct {
#define GPU_FIELD(name, version, required, params) CUresult (CUDAAPI *f_##name) params;
	GPU_ENTRY_POINTS(GPU_FIELD)
#undef GPU_FIELD
} drv;

typedef CUresult (CUDAAPI *get_proc_v2_fn)(const char *symbol, void **pfn, int version, cuuint64_t flags,
					   CUdriverProcAddressQueryResult *status);
typedef CUresult (CUDAAPI *get_proc_v1_fn)(const char *symbol, void **pfn, int version, cuuint64_t flags);

/* The outcome of loading the driver, decided once per process. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static enum kbx_status load_status;
static char load_message[512];
static int load_driver_version;
static int load_device_count;

struct gpu {
	struct gpu_info info;
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	int sticky;
	char last_kernel[128];  /* the latest launch, to name it when a later sync fails */
	/* gpu_stream_hold: the spinning kernel and its two flags in mapped host memory (word 0:
	 * release, word 1: the kernel gave up waiting) */
	CUmodule hold_mod;
	CUfunction hold_fn;
	volatile unsigned *hold_flags;
	CUdeviceptr hold_flags_dev;
};

struct gpu_module {
	CUmodule mod;
};

/* Errors after which the context is unusable: every later call returns the same error. */
static int is_sticky_error(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_TENSOR_MEMORY_LEAK:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_NVLINK_UNCORRECTABLE:
	case CUDA_ERROR_CONTAINED:
	case CUDA_ERROR_EXTERNAL_DEVICE:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
	case CUDA_ERROR_UNKNOWN:
		return 1;
	default:
		return 0;
	}
}

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)" */
static void cu_describe(CUresult r, char *buf, size_t len)
{
	const char *name = NULL, *text = NULL;

	if (drv.f_cuGetErrorName && drv.f_cuGetErrorName(r, &name) != CUDA_SUCCESS)
		name = NULL;
	if (drv.f_cuGetErrorString && drv.f_cuGetErrorString(r, &text) != CUDA_SUCCESS)
		text = NULL;
	if (name && text)
		snprintf(buf, len, "%s (%s)", name, text);
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "CUDA error %d", (int)r);
}

/*
 * Convert a failed call into KBX_ECUDA with "call 'subject': NAME (text)"; subject may be
 * NULL. Latches the sticky flag of g (g may be NULL before a context exists).
 */
static enum kbx_status KBX_PRINTF(4, 5) cu_fail(struct gpu *g, CUresult r, const char *call, const char *subject_fmt, ...)
{
	char what[256], subject[256] = "";
	va_list ap;

	cu_describe(r, what, sizeof(what));
	if (g && is_sticky_error(r))
		g->sticky = 1;
	if (subject_fmt) {
		va_start(ap, subject_fmt);
		vsnprintf(subject, sizeof(subject), subject_fmt, ap);
		va_end(ap);
	}
	if (subject[0])
		return kbx_error(KBX_ECUDA, "%s %s: %s", call, subject, what);
	return kbx_error(KBX_ECUDA, "%s: %s", call, what);
}

static void set_load_error(const char *fmt, ...) KBX_PRINTF(1, 2);

static void set_load_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(load_message, sizeof(load_message), fmt, ap);
	va_end(ap);
	load_status = KBX_ENODEVICE;
}

/* The library that was opened, by path where the loader tells it, for messages. */
static char driver_path[256] = "libcuda.so.1";

static void *open_driver(char *err, size_t errlen)
{
	void *h;
	const char *e;
	Dl_info di;
	void *sym;

	dlerror();
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "not found");
		/*
		 * libcuda.so (no version) is only the development link, which on a machine without
		 * a driver is usually the toolkit's stub; trying it lets the message say "stub"
		 * instead of "not found" when LD_LIBRARY_PATH points at the stubs folder.
		 */
		h = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return NULL;
		snprintf(driver_path, sizeof(driver_path), "libcuda.so");
	}
	sym = dlsym(h, "cuInit");
	if (sym && dladdr(sym, &di) && di.dli_fname && di.dli_fname[0])
		snprintf(driver_path, sizeof(driver_path), "%s", di.dli_fname);
	return h;
}

static void load_driver(void)
{
	get_proc_v2_fn get_v2 = NULL;
	get_proc_v1_fn get_v1 = NULL;
	char err[256];
	void *h;
	CUresult r;
	char what[256];

	h = open_driver(err, sizeof(err));
	if (!h) {
		set_load_error("no CUDA driver: cannot load 'libcuda.so.1' (%s)", err);
		return;
	}
	*(void **)&get_v2 = dlsym(h, "cuGetProcAddress_v2");
	if (!get_v2)
		*(void **)&get_v1 = dlsym(h, "cuGetProcAddress");
	if (!get_v2 && !get_v1) {
		set_load_error("CUDA driver too old: '%s' has no 'cuGetProcAddress'", driver_path);
		return;
	}

#define GPU_RESOLVE(name, version, required, params) \
	do { \
		void *pfn = NULL; \
		CUdriverProcAddressQueryResult qs = CU_GET_PROC_ADDRESS_SUCCESS; \
		r = get_v2 ? get_v2(#name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &qs) \
			   : get_v1(#name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT); \
		if (r == CUDA_ERROR_STUB_LIBRARY) { \
			set_load_error("no CUDA driver: '%s' is the toolkit's stub library " \
				       "(CUDA_ERROR_STUB_LIBRARY); take its folder out of LD_LIBRARY_PATH", \
				       driver_path); \
			return; \
		} \
		if (r != CUDA_SUCCESS || qs != CU_GET_PROC_ADDRESS_SUCCESS) \
			pfn = NULL; \
		if (!pfn && (required)) { \
			set_load_error("CUDA driver too old: '%s' has no '%s' for CUDA %d.%d (%s)", driver_path, \
				       #name, (version) / 1000, (version) % 1000 / 10, \
				       r != CUDA_SUCCESS ? "cuGetProcAddress failed" \
				       : qs == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "version not sufficient" \
				       : "symbol not found"); \
			memset(&drv, 0, sizeof(drv)); \
			return; \
		} \
		*(void **)&drv.f_##name = pfn; \
	} while (0);
	GPU_ENTRY_POINTS(GPU_RESOLVE)
#undef GPU_RESOLVE

	r = drv.f_cuInit(0);
	if (r == CUDA_ERROR_STUB_LIBRARY) {
		set_load_error("no CUDA driver: '%s' is the toolkit's stub library "
			       "(cuInit: CUDA_ERROR_STUB_LIBRARY); take its folder out of LD_LIBRARY_PATH", driver_path);
		return;
	}
	if (r != CUDA_SUCCESS) {
		cu_describe(r, what, sizeof(what));
		if (r == CUDA_ERROR_NO_DEVICE)
			set_load_error("no CUDA device: cuInit: %s", what);
		else
			set_load_error("CUDA driver failed to initialise: cuInit: %s", what);
		return;
	}
	if (drv.f_cuDriverGetVersion(&load_driver_version) != CUDA_SUCCESS)
		load_driver_version = 0;
	r = drv.f_cuDeviceGetCount(&load_device_count);
	if (r != CUDA_SUCCESS) {
		cu_describe(r, what, sizeof(what));
		set_load_error("no CUDA device: cuDeviceGetCount: %s", what);
		return;
	}
	if (load_device_count <= 0) {
		set_load_error("no CUDA device: the driver (CUDA %d.%d) sees zero devices",
			       load_driver_version / 1000, load_driver_version % 1000 / 10);
		return;
	}
	load_status = KBX_OK;
}

static enum kbx_status ensure_driver(void)
{
	pthread_once(&load_once, load_driver);
	if (load_status)
		return kbx_error(load_status, "%s", load_message);
	return KBX_OK;
}

int gpu_built(void)
{
	return 1;
}

/* Attributes that a driver may have dropped read as 0 rather than failing the probe. */
static int attr(CUdevice dev, CUdevice_attribute a)
{
	int v = 0;

	if (drv.f_cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS)
		v = 0;
	return v;
}

static enum kbx_status fill_info(int ordinal, struct gpu_info *info, CUdevice *devp)
{
	CUdevice dev;
	CUresult r;

	if (ordinal < 0 || ordinal >= load_device_count)
		return kbx_error(KBX_EINVAL, "no CUDA device %d: the driver sees %d device%s (0..%d)", ordinal,
				 load_device_count, load_device_count == 1 ? "" : "s", load_device_count - 1);
	r = drv.f_cuDeviceGet(&dev, ordinal);
	if (r != CUDA_SUCCESS)
		return cu_fail(NULL, r, "cuDeviceGet", "%d", ordinal);
	if (devp)
		*devp = dev;
	if (!info)
		return KBX_OK;
	memset(info, 0, sizeof(*info));
	r = drv.f_cuDeviceGetName(info->name, (int)sizeof(info->name) - 1, dev);
	if (r != CUDA_SUCCESS)
		return cu_fail(NULL, r, "cuDeviceGetName", "%d", ordinal);
	info->name[sizeof(info->name) - 1] = '\0';
	info->ordinal = ordinal;
	/* NVML numbers devices in its own order; the PCI bus id is what it and CUDA agree on. */
	if (drv.f_cuDeviceGetPCIBusId &&
	    drv.f_cuDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof(info->pci_bus_id), dev) == CUDA_SUCCESS)
		info->pci_bus_id[sizeof(info->pci_bus_id) - 1] = '\0';
	else
		info->pci_bus_id[0] = '\0';
	info->cc_major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	info->cc_minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	info->sms = attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	r = drv.f_cuDeviceTotalMem(&info->total_mem, dev);
	if (r != CUDA_SUCCESS)
		info->total_mem = 0;
	info->l2_bytes = attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
	info->driver_version = load_driver_version;
	info->mem_clock_khz = attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
	info->bus_width_bits = attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
	info->sm_clock_khz = attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
	/* Double data rate: two transfers per memory clock. */
	info->peak_gbps = 2.0 * info->mem_clock_khz * 1e3 * (info->bus_width_bits / 8.0) / 1e9;
	info->max_threads_per_block = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	info->max_smem_per_block_optin = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	info->cooperative = attr(dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
	/* The UUID names this very board (calibrations are stored by it); a driver without the
	 * call leaves it empty and lookups fall back to the name. */
	{
		CUuuid u;

		if (drv.f_cuDeviceGetUuid && drv.f_cuDeviceGetUuid(&u, dev) == CUDA_SUCCESS)
			gpu_format_uuid((const unsigned char *)u.bytes, info->uuid, sizeof(info->uuid));
	}
	return KBX_OK;
}

enum kbx_status gpu_probe(int ordinal, struct gpu_info *info, int *device_count)
{
	enum kbx_status st;

	if (device_count)
		*device_count = 0;
	if ((st = ensure_driver()))
		return st;
	if (device_count)
		*device_count = load_device_count;
	return fill_info(ordinal, info, NULL);
}

/* gpu_keep_contexts: the devices whose primary context this process holds until it exits */
static int keep_contexts;
static unsigned long long kept_devices;        /* bit d: device d's context held (d < 64) */

void gpu_keep_contexts(void)
{
	keep_contexts = 1;
}

enum kbx_status gpu_open(int ordinal, struct gpu **out)
{
	struct gpu *g;
	enum kbx_status st;
	CUresult r;

	*out = NULL;
	if ((st = ensure_driver()))
		return st;
	g = xcalloc(1, sizeof(*g));
	if ((st = fill_info(ordinal, &g->info, &g->dev))) {
		free(g);
		return st;
	}
	r = drv.f_cuDevicePrimaryCtxRetain(&g->ctx, g->dev);
	if (r != CUDA_SUCCESS) {
		st = cu_fail(NULL, r, "cuDevicePrimaryCtxRetain", "'%s'", g->info.name);
		free(g);
		return st;
	}
	if (keep_contexts && g->dev >= 0 && g->dev < 64 && !(kept_devices >> g->dev & 1)) {
		CUcontext held;

		if (drv.f_cuDevicePrimaryCtxRetain(&held, g->dev) == CUDA_SUCCESS)
			kept_devices |= 1ull << g->dev;
	}
	r = drv.f_cuCtxSetCurrent(g->ctx);
	if (r == CUDA_SUCCESS)
		r = drv.f_cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING);
	if (r != CUDA_SUCCESS) {
		st = cu_fail(NULL, r, g->stream ? "cuStreamCreate" : "cuCtxSetCurrent", "'%s'", g->info.name);
		drv.f_cuDevicePrimaryCtxRelease(g->dev);
		free(g);
		return st;
	}
	*out = g;
	return KBX_OK;
}

void gpu_close(struct gpu *g)
{
	if (!g)
		return;
	/* Errors here change nothing: the process is about to drop the context anyway. */
	drv.f_cuCtxSynchronize();
	if (g->hold_mod)
		drv.f_cuModuleUnload(g->hold_mod);
	if (g->hold_flags)
		drv.f_cuMemFreeHost((void *)g->hold_flags);
	if (g->stream)
		drv.f_cuStreamDestroy(g->stream);
	drv.f_cuDevicePrimaryCtxRelease(g->dev);
	free(g);
}

const struct gpu_info *gpu_get_info(const struct gpu *g)
{
	return g ? &g->info : NULL;
}

int gpu_is_sticky(const struct gpu *g)
{
	return g ? g->sticky : 0;
}

enum kbx_status gpu_mem_info(struct gpu *g, size_t *free_bytes, size_t *total_bytes)
{
	CUresult r;

	*free_bytes = *total_bytes = 0;
	if (!drv.f_cuMemGetInfo)
		return kbx_error(KBX_ENOTFOUND, "cuMemGetInfo: not in this driver");
	r = drv.f_cuMemGetInfo(free_bytes, total_bytes);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemGetInfo", NULL);
	return KBX_OK;
}

enum kbx_status gpu_alloc(struct gpu *g, size_t bytes, gpu_ptr *out)
{
	CUdeviceptr p = 0;
	CUresult r;

	*out = 0;
	/* cuMemAlloc rejects 0 bytes; a zero-sized tensor still wants a distinct valid pointer. */
	r = drv.f_cuMemAlloc(&p, bytes ? bytes : 1);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemAlloc", "of %zu bytes", bytes);
	*out = (gpu_ptr)p;
	return KBX_OK;
}

void gpu_free(struct gpu *g, gpu_ptr p)
{
	CUresult r;

	if (!p)
		return;
	r = drv.f_cuMemFree((CUdeviceptr)p);
	if (r != CUDA_SUCCESS && is_sticky_error(r) && g)
		g->sticky = 1;
}

static enum kbx_status stream_sync(struct gpu *g, const char *call)
{
	CUresult r = drv.f_cuStreamSynchronize(g->stream);

	if (r == CUDA_SUCCESS) {
		g->last_kernel[0] = '\0';
		return KBX_OK;
	}
	if (g->last_kernel[0])
		return cu_fail(g, r, call, "after '%s'", g->last_kernel);
	return cu_fail(g, r, call, NULL);
}

enum kbx_status gpu_upload(struct gpu *g, gpu_ptr dst, const void *src, size_t bytes)
{
	CUresult r;

	if (!bytes)
		return KBX_OK;
	r = drv.f_cuMemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, g->stream);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemcpyHtoD", "of %zu bytes", bytes);
	/* The caller may reuse src at once: wait until the copy has left it. */
	return stream_sync(g, "cuMemcpyHtoD");
}

enum kbx_status gpu_download(struct gpu *g, void *dst, gpu_ptr src, size_t bytes)
{
	CUresult r;

	if (!bytes)
		return KBX_OK;
	r = drv.f_cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, bytes, g->stream);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemcpyDtoH", "of %zu bytes", bytes);
	return stream_sync(g, "cuMemcpyDtoH");
}

enum kbx_status gpu_memset8(struct gpu *g, gpu_ptr dst, unsigned char v, size_t bytes)
{
	CUresult r;

	if (!bytes)
		return KBX_OK;
	r = drv.f_cuMemsetD8Async((CUdeviceptr)dst, v, bytes, g->stream);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemsetD8", "of %zu bytes", bytes);
	return KBX_OK;
}

enum kbx_status gpu_memset32(struct gpu *g, gpu_ptr dst, uint32_t v, size_t count)
{
	CUresult r;

	if (!count)
		return KBX_OK;
	r = drv.f_cuMemsetD32Async((CUdeviceptr)dst, v, count, g->stream);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemsetD32", "of %zu words", count);
	return KBX_OK;
}

enum kbx_status gpu_copy(struct gpu *g, gpu_ptr dst, gpu_ptr src, size_t bytes)
{
	CUresult r;

	if (!bytes)
		return KBX_OK;
	r = drv.f_cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes, g->stream);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemcpyDtoD", "of %zu bytes", bytes);
	return KBX_OK;
}

enum kbx_status gpu_module_load(struct gpu *g, const void *image, struct gpu_module **out)
{
	/* The JIT's own log says why a PTX image did not load; keep it for the message. */
	char errlog[2048] = "";
	CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { errlog, (void *)(uintptr_t)(sizeof(errlog) - 1) };
	CUmodule mod = NULL;
	CUresult r;

	*out = NULL;
	if (!image)
		return kbx_error(KBX_EINVAL, "cuModuleLoadData: no image");
	r = drv.f_cuModuleLoadDataEx(&mod, image, 2, opts, vals);
	if (r != CUDA_SUCCESS) {
		char *c;

		errlog[sizeof(errlog) - 1] = '\0';
		str_trim(errlog);
		/* One line for the message: ptxas writes one line per complaint. */
		for (c = errlog; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		if (errlog[0]) {
			char what[256];

			cu_describe(r, what, sizeof(what));
			if (is_sticky_error(r))
				g->sticky = 1;
			return kbx_error(KBX_ECUDA, "cuModuleLoadData: %s; JIT log: %s", what, errlog);
		}
		return cu_fail(g, r, "cuModuleLoadData", NULL);
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->mod = mod;
	return KBX_OK;
}

void gpu_module_unload(struct gpu *g, struct gpu_module *m)
{
	if (!m)
		return;
	drv.f_cuModuleUnload(m->mod);
	free(m);
}

enum kbx_status gpu_module_function(struct gpu *g, struct gpu_module *m, const char *name, gpu_function *out)
{
	CUfunction f = NULL;
	CUresult r;

	*out = NULL;
	if (!m || !name)
		return kbx_error(KBX_EINVAL, "cuModuleGetFunction: no module or name");
	r = drv.f_cuModuleGetFunction(&f, m->mod, name);
	if (r == CUDA_ERROR_NOT_FOUND)
		return kbx_error(KBX_ENOTFOUND, "cuModuleGetFunction '%s': the module has no kernel of that name "
				 "(is it extern \"C\" __global__?)", name);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuModuleGetFunction", "'%s'", name);
	*out = (gpu_function)f;
	return KBX_OK;
}

enum kbx_status gpu_module_global(struct gpu *g, struct gpu_module *m, const char *name, gpu_ptr *ptr,
				  size_t *bytes)
{
	CUdeviceptr p = 0;
	size_t n = 0;
	CUresult r;

	*ptr = 0;
	*bytes = 0;
	if (!m || !name)
		return kbx_error(KBX_EINVAL, "cuModuleGetGlobal: no module or name");
	if (!drv.f_cuModuleGetGlobal)
		return kbx_error(KBX_ENOTFOUND, "cuModuleGetGlobal: not in this driver");
	r = drv.f_cuModuleGetGlobal(&p, &n, m->mod, name);
	if (r == CUDA_ERROR_NOT_FOUND)
		return kbx_error(KBX_ENOTFOUND, "cuModuleGetGlobal '%s': the module has no global of that name", name);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuModuleGetGlobal", "'%s'", name);
	*ptr = (gpu_ptr)p;
	*bytes = n;
	return KBX_OK;
}

/* The parameter space of a kernel is at most 32 KiB, so no kernel has more parameters. */
#define GPU_MAX_PARAMS 32768

enum kbx_status gpu_function_params(struct gpu *g, gpu_function f, int *count, size_t *sizes, int max)
{
	size_t i, offset, size;
	CUresult r = CUDA_SUCCESS;

	*count = 0;
	if (!drv.f_cuFuncGetParamInfo)
		return kbx_error(KBX_ENOTFOUND, "cuFuncGetParamInfo: not in this driver (CUDA %d.%d; needs 12.4)",
				 load_driver_version / 1000, load_driver_version % 1000 / 10);
	if (!f)
		return kbx_error(KBX_EINVAL, "cuFuncGetParamInfo: no function");
	/* There is no call for the count: ask for each index until the driver says out of range. */
	for (i = 0; i < GPU_MAX_PARAMS; i++) {
		r = drv.f_cuFuncGetParamInfo((CUfunction)f, i, &offset, &size);
		if (r != CUDA_SUCCESS)
			break;
		if (sizes && (int)i < max)
			sizes[i] = size;
	}
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		return kbx_error(KBX_ENOTFOUND, "cuFuncGetParamInfo: not supported for this function");
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE)
		return cu_fail(g, r, "cuFuncGetParamInfo", "index %zu", i);
	*count = (int)i;
	return KBX_OK;
}

enum kbx_status gpu_function_set_smem(struct gpu *g, gpu_function f, int bytes)
{
	CUresult r;

	if (!f)
		return kbx_error(KBX_EINVAL, "cuFuncSetAttribute: no function");
	if (bytes < 0 || (g->info.max_smem_per_block_optin > 0 && bytes > g->info.max_smem_per_block_optin))
		return kbx_error(KBX_EINVAL, "%d bytes of dynamic shared memory asked for, '%s' allows at most %d per block",
				 bytes, g->info.name, g->info.max_smem_per_block_optin);
	r = drv.f_cuFuncSetAttribute((CUfunction)f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuFuncSetAttribute", "max dynamic shared memory %d bytes", bytes);
	return KBX_OK;
}

enum kbx_status gpu_launch(struct gpu *g, gpu_function f, const char *name, const unsigned grid[3],
			   const unsigned block[3], unsigned smem, void **params, int cooperative)
{
	const char *call = cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel";
	CUresult r;

	if (!name)
		name = "?";
	if (!f)
		return kbx_error(KBX_EINVAL, "%s '%s': no function", call, name);
	snprintf(g->last_kernel, sizeof(g->last_kernel), "%s", name);
	if (cooperative && !g->info.cooperative)
		return kbx_error(KBX_ECUDA, "%s '%s': '%s' does not support cooperative launches", call, name,
				 g->info.name);
	/* Above 48 KiB a kernel must opt in; doing it here makes a forgotten call harmless. */
	if (smem > 48 * 1024) {
		enum kbx_status st = gpu_function_set_smem(g, f, smem > (unsigned)INT_MAX ? INT_MAX : (int)smem);

		if (st)
			return kbx_wrap(st, "%s '%s'", call, name);
	}
	if (cooperative)
		r = drv.f_cuLaunchCooperativeKernel((CUfunction)f, grid[0], grid[1], grid[2], block[0], block[1],
						    block[2], smem, g->stream, params);
	else
		r = drv.f_cuLaunchKernel((CUfunction)f, grid[0], grid[1], grid[2], block[0], block[1], block[2], smem,
					 g->stream, params, NULL);
	if (r == CUDA_SUCCESS)
		return KBX_OK;
	/* A sticky error is left over from earlier work; the configuration would only mislead. */
	if (is_sticky_error(r))
		return cu_fail(g, r, call, "'%s'", name);
	return cu_fail(g, r, call, "'%s' (grid %u,%u,%u block %u,%u,%u shared %u bytes)", name, grid[0], grid[1],
		       grid[2], block[0], block[1], block[2], smem);
}

/* Memory of the context current on the calling thread (gpu.h "raw"). */
enum kbx_status gpu_raw_alloc(size_t bytes, gpu_ptr *out)
{
	CUdeviceptr p = 0;
	CUresult r;
	enum kbx_status st = ensure_driver();

	if (st)
		return st;
	r = drv.f_cuMemAlloc(&p, bytes ? bytes : 1);
	if (r != CUDA_SUCCESS)
		return cu_fail(NULL, r, "cuMemAlloc", "%zu bytes", bytes);
	*out = (gpu_ptr)p;
	return KBX_OK;
}

void gpu_raw_free(gpu_ptr p)
{
	if (p && ensure_driver() == KBX_OK)
		drv.f_cuMemFree((CUdeviceptr)p);
}

enum kbx_status gpu_raw_memset8(gpu_ptr p, unsigned char v, size_t n, unsigned long long stream)
{
	CUresult r;
	enum kbx_status st = ensure_driver();

	if (st)
		return st;
	r = drv.f_cuMemsetD8Async((CUdeviceptr)p, v, n, (CUstream)(uintptr_t)stream);
	return r == CUDA_SUCCESS ? KBX_OK : cu_fail(NULL, r, "cuMemsetD8Async", "%zu bytes", n);
}

enum kbx_status gpu_raw_sync_download(void *dst, gpu_ptr src, size_t n)
{
	CUresult r;
	enum kbx_status st = ensure_driver();

	if (st)
		return st;
	r = drv.f_cuCtxSynchronize();
	if (r == CUDA_SUCCESS)
		r = drv.f_cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, n, NULL);
	if (r == CUDA_SUCCESS)
		r = drv.f_cuStreamSynchronize(NULL);
	return r == CUDA_SUCCESS ? KBX_OK : cu_fail(NULL, r, "cuMemcpyDtoH", "%zu bytes", n);
}

unsigned long long gpu_stream_handle(const struct gpu *g)
{
	return (unsigned long long)(uintptr_t)g->stream;
}

enum kbx_status gpu_sync(struct gpu *g)
{
	return stream_sync(g, "cuStreamSynchronize");
}

enum kbx_status gpu_event_create(struct gpu *g, gpu_event *out)
{
	CUevent e = NULL;
	CUresult r = drv.f_cuEventCreate(&e, CU_EVENT_DEFAULT);

	*out = NULL;
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuEventCreate", NULL);
	*out = (gpu_event)e;
	return KBX_OK;
}

void gpu_event_destroy(struct gpu *g, gpu_event e)
{
	if (e)
		drv.f_cuEventDestroy((CUevent)e);
}

enum kbx_status gpu_event_record(struct gpu *g, gpu_event e)
{
	CUresult r = drv.f_cuEventRecord((CUevent)e, g->stream);

	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuEventRecord", NULL);
	return KBX_OK;
}

enum kbx_status gpu_event_elapsed_ms(struct gpu *g, gpu_event start, gpu_event end, float *ms)
{
	CUresult r;

	*ms = 0;
	r = drv.f_cuEventSynchronize((CUevent)end);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuEventSynchronize", NULL);
	r = drv.f_cuEventElapsedTime(ms, (CUevent)start, (CUevent)end);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuEventElapsedTime", NULL);
	return KBX_OK;
}

/*
 * The stream hold (bench.h, hide_latency): one thread spinning on a flag in mapped host memory,
 * written in PTX so that it needs no NVRTC and JITs for any device. %globaltimer counts
 * nanoseconds; past the timeout the kernel sets the second flag and returns, so a launch queue
 * that fills up before the host releases the hold cannot deadlock.
 */
static const char hold_ptx[] =
	".version 6.0\n"
	".target sm_50\n"
	".address_size 64\n"
	".visible .entry kbx_hold(.param .u64 flags, .param .u64 timeout_ns)\n"
	"{\n"
	"	.reg .pred p, q;\n"
	"	.reg .u32 v;\n"
	"	.reg .u64 f, lim, t0, t;\n"
	"	ld.param.u64 f, [flags];\n"
	"	ld.param.u64 lim, [timeout_ns];\n"
	"	mov.u64 t0, %globaltimer;\n"
	"SPIN:\n"
	"	ld.volatile.global.u32 v, [f];\n"
	"	setp.ne.u32 p, v, 0;\n"
	"	@p bra DONE;\n"
	"	mov.u64 t, %globaltimer;\n"
	"	sub.u64 t, t, t0;\n"
	"	setp.lt.u64 q, t, lim;\n"
	"	@q bra SPIN;\n"
	"	st.volatile.global.u32 [f+4], 1;\n"
	"DONE:\n"
	"	ret;\n"
	"}\n";

static enum kbx_status hold_setup(struct gpu *g)
{
	void *host = NULL;
	CUresult r;

	if (g->hold_fn)
		return KBX_OK;
	if (!drv.f_cuMemHostAlloc || !drv.f_cuMemHostGetDevicePointer || !drv.f_cuMemFreeHost)
		return kbx_error(KBX_ENOTFOUND, "mapped host memory: not in this driver");
	r = drv.f_cuMemHostAlloc(&host, 2 * sizeof(unsigned), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemHostAlloc", "for the stream hold");
	g->hold_flags = host;
	r = drv.f_cuMemHostGetDevicePointer(&g->hold_flags_dev, host, 0);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuMemHostGetDevicePointer", "for the stream hold");
	r = drv.f_cuModuleLoadDataEx(&g->hold_mod, hold_ptx, 0, NULL, NULL);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuModuleLoadData", "of the stream hold kernel");
	r = drv.f_cuModuleGetFunction(&g->hold_fn, g->hold_mod, "kbx_hold");
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuModuleGetFunction", "kbx_hold");
	return KBX_OK;
}

enum kbx_status gpu_stream_hold(struct gpu *g, double timeout_ms)
{
	unsigned long long ns = (unsigned long long)(timeout_ms * 1e6);
	void *params[2] = { &g->hold_flags_dev, &ns };
	enum kbx_status st = hold_setup(g);
	CUresult r;

	if (st)
		return st;
	g->hold_flags[0] = 0;
	g->hold_flags[1] = 0;
	__sync_synchronize();
	r = drv.f_cuLaunchKernel(g->hold_fn, 1, 1, 1, 1, 1, 1, 0, g->stream, params, NULL);
	if (r != CUDA_SUCCESS)
		return cu_fail(g, r, "cuLaunchKernel", "'kbx_hold'");
	return KBX_OK;
}

void gpu_stream_release(struct gpu *g)
{
	if (!g->hold_flags)
		return;
	__sync_synchronize();
	g->hold_flags[0] = 1;
	__sync_synchronize();
}

int gpu_stream_hold_timed_out(const struct gpu *g)
{
	return g->hold_flags ? (int)g->hold_flags[1] : 0;
}

void gpu_reset_persisting_l2(struct gpu *g)
{
	if (drv.f_cuCtxResetPersistingL2Cache)
		drv.f_cuCtxResetPersistingL2Cache();
}

#else /* !HAVE_CUDA */

#define NO_GPU_BUILD() kbx_error(KBX_ENOGPUBUILD, "GPU support was not built: configure found no CUDA headers")

int gpu_built(void)
{
	return 0;
}

enum kbx_status gpu_probe(int ordinal, struct gpu_info *info, int *device_count)
{
	if (device_count)
		*device_count = 0;
	return NO_GPU_BUILD();
}

enum kbx_status gpu_open(int ordinal, struct gpu **out)
{
	*out = NULL;
	return NO_GPU_BUILD();
}

void gpu_close(struct gpu *g)
{
}

const struct gpu_info *gpu_get_info(const struct gpu *g)
{
	return NULL;
}

int gpu_is_sticky(const struct gpu *g)
{
	return 0;
}

enum kbx_status gpu_mem_info(struct gpu *g, size_t *free_bytes, size_t *total_bytes)
{
	*free_bytes = *total_bytes = 0;
	return NO_GPU_BUILD();
}

enum kbx_status gpu_alloc(struct gpu *g, size_t bytes, gpu_ptr *out)
{
	*out = 0;
	return NO_GPU_BUILD();
}

void gpu_free(struct gpu *g, gpu_ptr p)
{
}

enum kbx_status gpu_upload(struct gpu *g, gpu_ptr dst, const void *src, size_t bytes)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_download(struct gpu *g, void *dst, gpu_ptr src, size_t bytes)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_memset8(struct gpu *g, gpu_ptr dst, unsigned char v, size_t bytes)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_memset32(struct gpu *g, gpu_ptr dst, uint32_t v, size_t count)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_copy(struct gpu *g, gpu_ptr dst, gpu_ptr src, size_t bytes)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_module_load(struct gpu *g, const void *image, struct gpu_module **out)
{
	*out = NULL;
	return NO_GPU_BUILD();
}

void gpu_module_unload(struct gpu *g, struct gpu_module *m)
{
}

enum kbx_status gpu_module_function(struct gpu *g, struct gpu_module *m, const char *name, gpu_function *out)
{
	*out = NULL;
	return NO_GPU_BUILD();
}

enum kbx_status gpu_function_params(struct gpu *g, gpu_function f, int *count, size_t *sizes, int max)
{
	*count = 0;
	return NO_GPU_BUILD();
}

enum kbx_status gpu_module_global(struct gpu *g, struct gpu_module *m, const char *name, gpu_ptr *ptr,
				  size_t *bytes)
{
	*ptr = 0;
	*bytes = 0;
	return NO_GPU_BUILD();
}

enum kbx_status gpu_function_set_smem(struct gpu *g, gpu_function f, int bytes)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_launch(struct gpu *g, gpu_function f, const char *name, const unsigned grid[3],
			   const unsigned block[3], unsigned smem, void **params, int cooperative)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_raw_alloc(size_t bytes, gpu_ptr *out)
{
	(void)bytes;
	*out = 0;
	return kbx_error(KBX_ENOGPUBUILD, "kbx was built without CUDA");
}

void gpu_raw_free(gpu_ptr p)
{
	(void)p;
}

enum kbx_status gpu_raw_memset8(gpu_ptr p, unsigned char v, size_t n, unsigned long long stream)
{
	(void)p, (void)v, (void)n, (void)stream;
	return kbx_error(KBX_ENOGPUBUILD, "kbx was built without CUDA");
}

enum kbx_status gpu_raw_sync_download(void *dst, gpu_ptr src, size_t n)
{
	(void)dst, (void)src, (void)n;
	return kbx_error(KBX_ENOGPUBUILD, "kbx was built without CUDA");
}

unsigned long long gpu_stream_handle(const struct gpu *g)
{
	(void)g;
	return 0;
}

enum kbx_status gpu_sync(struct gpu *g)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_event_create(struct gpu *g, gpu_event *out)
{
	*out = NULL;
	return NO_GPU_BUILD();
}

void gpu_event_destroy(struct gpu *g, gpu_event e)
{
}

enum kbx_status gpu_event_record(struct gpu *g, gpu_event e)
{
	return NO_GPU_BUILD();
}

enum kbx_status gpu_event_elapsed_ms(struct gpu *g, gpu_event start, gpu_event end, float *ms)
{
	*ms = 0;
	return NO_GPU_BUILD();
}

enum kbx_status gpu_stream_hold(struct gpu *g, double timeout_ms)
{
	return NO_GPU_BUILD();
}

void gpu_stream_release(struct gpu *g)
{
}

int gpu_stream_hold_timed_out(const struct gpu *g)
{
	return 0;
}

void gpu_reset_persisting_l2(struct gpu *g)
{
}

#endif /* HAVE_CUDA */
