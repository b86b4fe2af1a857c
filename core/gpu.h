/*
 * gpu.h - the CUDA Driver API, loaded at run time.
 *
 * libcuda.so.1 is opened with dlopen and every entry point is resolved through
 * cuGetProcAddress, so kbx never links -lcuda and runs (browse, compile, history) on machines
 * without a driver. No library, a stub library (the toolkit's stubs/libcuda.so), cuInit failing,
 * or zero devices all give KBX_ENODEVICE with a message saying which; a build without CUDA
 * headers gives KBX_ENOGPUBUILD. Every CUDA error is converted here, the message naming the
 * call and the CUDA error name ("cuLaunchKernel 'gelu_fwd': CUDA_ERROR_ILLEGAL_ADDRESS").
 *
 * Only the worker process calls gpu_open: a context can be poisoned by a faulting kernel, and
 * gpu_is_sticky() tells whether the last error was of that kind (the worker then exits).
 */
#ifndef KBX_GPU_H
#define KBX_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef uint64_t gpu_ptr;
struct gpu;
struct gpu_module;
typedef void *gpu_function;
typedef void *gpu_event;

struct gpu_info {
	char name[256];
	char uuid[64];            /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as nvidia-smi prints it; "" if unknown */
	int ordinal;
	int cc_major, cc_minor;
	int sms;
	size_t total_mem;
	int l2_bytes;
	int driver_version;       /* e.g. 13000 */
	int mem_clock_khz, bus_width_bits, sm_clock_khz;
	double peak_gbps;         /* 2 * mem clock * bus width / 8 (datasheet-like lead) */
	int max_threads_per_block, max_smem_per_block_optin;
	int cooperative;          /* supports cooperative launch */
	char pci_bus_id[32];      /* "0000:19:00.0" (cuDeviceGetPCIBusId): finds the device in NVML; "" if unknown */
};

/* The 16 bytes of a device UUID as nvidia-smi writes them (len >= 41), lowercase hex. */
void gpu_format_uuid(const unsigned char bytes[16], char *out, size_t len);

/* Whether this build has GPU support compiled in. */
int gpu_built(void);

/* Probe without creating a context: fills info for device `ordinal` (name, cc, sms, ...). */
enum kbx_status gpu_probe(int ordinal, struct gpu_info *info, int *device_count);

enum kbx_status gpu_open(int ordinal, struct gpu **out);
void gpu_close(struct gpu *g);
/* From now on this process keeps each device's primary context from its first gpu_open to its
 * exit (one more retain), so that gpu_close no longer destroys it and the next gpu_open finds it:
 * a worker that serves several runs (`kbx worker` kept by kbx eval --reuse-worker) sets its
 * context up once. */
void gpu_keep_contexts(void);
const struct gpu_info *gpu_get_info(const struct gpu *g);
/* 1 when the last CUDA error poisons the context (illegal address, launch failure, ...). */
int gpu_is_sticky(const struct gpu *g);

/* Free and total device memory now (cuMemGetInfo), for sizing buffers to what is left. */
enum kbx_status gpu_mem_info(struct gpu *g, size_t *free_bytes, size_t *total_bytes);

enum kbx_status gpu_alloc(struct gpu *g, size_t bytes, gpu_ptr *out);
void gpu_free(struct gpu *g, gpu_ptr p);
enum kbx_status gpu_upload(struct gpu *g, gpu_ptr dst, const void *src, size_t bytes);
enum kbx_status gpu_download(struct gpu *g, void *dst, gpu_ptr src, size_t bytes);
enum kbx_status gpu_memset8(struct gpu *g, gpu_ptr dst, unsigned char v, size_t bytes);
enum kbx_status gpu_memset32(struct gpu *g, gpu_ptr dst, uint32_t v, size_t count);
enum kbx_status gpu_copy(struct gpu *g, gpu_ptr dst, gpu_ptr src, size_t bytes);

enum kbx_status gpu_module_load(struct gpu *g, const void *image, struct gpu_module **out);
void gpu_module_unload(struct gpu *g, struct gpu_module *m);
enum kbx_status gpu_module_function(struct gpu *g, struct gpu_module *m, const char *name, gpu_function *out);
/* Parameter count and the size of each parameter (sizes may be NULL; up to max entries). */
/* Device address and size of global variable `name` (its symbol) of module m; KBX_ENOTFOUND when
 * the module has no such global or the driver cannot say. */
enum kbx_status gpu_module_global(struct gpu *g, struct gpu_module *m, const char *name, gpu_ptr *ptr,
				  size_t *bytes);
enum kbx_status gpu_function_params(struct gpu *g, gpu_function f, int *count, size_t *sizes, int max);
/* Allow more than 48 KiB of dynamic shared memory when asked for. */
enum kbx_status gpu_function_set_smem(struct gpu *g, gpu_function f, int bytes);

/* Launch on the worker's one stream. params: array of pointers to each argument's value. */
enum kbx_status gpu_launch(struct gpu *g, gpu_function f, const char *name, const unsigned grid[3],
			   const unsigned block[3], unsigned smem, void **params, int cooperative);
enum kbx_status gpu_sync(struct gpu *g);
/* The stream every launch and copy goes to, as an integer (a CUstream): a host candidate
 * (engine.h) queues its work there, so that timing events and the L2 flush bracket it. */
unsigned long long gpu_stream_handle(const struct gpu *g);

/* "Raw" memory of whatever context is current on the calling thread, without a struct gpu:
 * the Python worker's allocator (pyhost.h) serves torch, which made the device's primary
 * context current. sync_download waits for the whole context first. */
enum kbx_status gpu_raw_alloc(size_t bytes, gpu_ptr *out);
void gpu_raw_free(gpu_ptr p);
enum kbx_status gpu_raw_memset8(gpu_ptr p, unsigned char v, size_t n, unsigned long long stream);
enum kbx_status gpu_raw_sync_download(void *dst, gpu_ptr src, size_t n);

enum kbx_status gpu_event_create(struct gpu *g, gpu_event *out);
void gpu_event_destroy(struct gpu *g, gpu_event e);
enum kbx_status gpu_event_record(struct gpu *g, gpu_event e);
enum kbx_status gpu_event_elapsed_ms(struct gpu *g, gpu_event start, gpu_event end, float *ms);

/* Hold the stream (bench.h, hide_latency): enqueue a one-thread kernel that spins until
 * gpu_stream_release, or for at most timeout_ms; what is enqueued after it waits on the GPU
 * until then. After the next synchronisation, gpu_stream_hold_timed_out says whether the
 * kernel gave up before the release (the host could not enqueue everything in time). */
enum kbx_status gpu_stream_hold(struct gpu *g, double timeout_ms);
void gpu_stream_release(struct gpu *g);
int gpu_stream_hold_timed_out(const struct gpu *g);

/* Reset the persisting-L2 window/cache (cuCtxResetPersistingL2Cache), ignoring lack of support. */
void gpu_reset_persisting_l2(struct gpu *g);

#endif
