/*
 * pyhost.h - the boundary between kbx's engine and the Python worker (python/kbx_worker.py).
 *
 * A Python candidate (KernelBenchX's format: a module with @triton.jit kernels and an entry
 * function named and shaped like the task's PyTorch function) runs inside a Python process
 * that loads kbx's engine as a shared library (libkbxpy.so). The process is a worker like
 * `kbx worker`: the parent supervises it the same way (worker.h) and it speaks the same event
 * protocol on stdout, because the same C code (worker_serve, engine_run) writes the events.
 * Only the candidate's "launches" differ: instead of NVRTC kernels and launch lines, the engine
 * calls back into Python, which calls the entry function on tensors that alias the engine's own
 * device buffers. Inputs, the reference, poisoning, guard zones, the input check, comparison,
 * determinism, timing: all of it stays in C, the same as for a CUDA candidate.
 *
 *   python3 kbx_worker.py
 *     import torch, triton; torch's allocator := kbx_torch_alloc/kbx_torch_free (below)
 *     kbx_py_main(&callbacks)  ->  worker_serve(stdin, stdout, host)  ->  engine_run
 *                                                 host->load / bind / call  ->  Python
 *
 * Every callback answers in a caller-provided buffer `out` of `outlen` bytes, as one JSON object
 * (truncated JSON is treated as an unreadable answer; 64 KiB are always provided). All strings
 * are UTF-8. Every callback runs on the thread that called kbx_py_main, with the engine's CUDA
 * context (the device's primary context, which torch shares) current.
 *
 * load(request, out, outlen) -> 0 ok, nonzero failed
 *   request: {"source": TEXT, "source_name": "cand.py", "task": "Activation/gelu",
 *             "task_dir": ABS PATH (holds task.ini and crosscheck.py), "entry": "gelu" or null,
 *             "signature": "(input, approximate='none')" or null, "device": 0, "has_gpu": true,
 *             "allow_pytorch": true (only with --allow-pytorch: outputs computed by PyTorch ops
 *             pass when they are right, for cross-checking a task against PyTorch)}
 *   The worker checks the syntax first (a SyntaxError needs neither torch nor a GPU), then imports
 *   torch and triton, executes the module, finds the entry function and checks its signature.
 *   ok:     {"entry": "gelu", "kernels": ["_gelu_kernel", ...], "autotuned": [...], "log": [LINES]}
 *   failed: {"verdict": "compile_error" | "abi_error" | "not_run" | "error",
 *            "message": ONE LINE, "line": N (1-based, 0 unknown), "col": N, "log": [LINES]}
 *   compile_error: SyntaxError, an import that fails, an exception while the module executes;
 *   abi_error: no entry function, or a signature that cannot take the task's call;
 *   not_run: what is missing (torch, triton, a GPU that torch sees) after the syntax check.
 *
 * bind(binding, out, outlen) -> a handle >= 0, or -1 with {"message": ...} in out
 *   binding: {"stream": INT (a CUstream), "args": [{"name": "x", "dir": "in" | "out" | "inout",
 *             "dtype": "f32", "shape": [1024], "ptr": INT (device address), "bytes": INT}],
 *             "bindings": {"n": 1024, "approximate": 0, ...}}
 *   Every task buffer of one problem for the candidate; ints stay ints, floats floats. The
 *   worker wraps each buffer as a torch tensor of that dtype and shape (no copy) and keeps what
 *   the task's crosscheck.py `call(fn, a, torch)` needs. A handle stays valid until unbind.
 *
 * unbind(handle): the engine is about to free those buffers.
 *
 * call(handle, mode, out, outlen) -> 0 ok, nonzero failed
 *   mode KBX_PY_TIMED: the entry function only, on the bound stream, no synchronisation, no
 *     copy: this is what the timing measures (the L2 flush and events are the engine's).
 *   mode KBX_PY_CHECKED: the entry function, then each returned output copied into its bound
 *     out/inout buffer (shape by element count, dtype exactly), then a synchronisation, the
 *     guard zones of every live allocation checked (kbx_alloc_check), and where each output
 *     came from (a Triton kernel of the candidate, or only PyTorch ops). An autotuned kernel is
 *     run with every config it may pick; the buffers get the outputs of the config farthest from
 *     the reference buffers, when the binding names them ("ref_ptr" beside "ptr").
 *   ok:     {"log": [LINES]}
 *   failed: {"kind": "exception" | "compile" | "output" | "guard" | "not_kernel" | "cuda" | "skip",
 *            "message": ONE LINE, "line": N (the candidate's line, 0 unknown), "log": [LINES]}
 *   exception: the entry function raised (message names the exception and the candidate's line);
 *   compile: a Triton kernel did not compile at its first call (compile_error, on its line);
 *   output: a missing output, a wrong dtype or element count; guard: an allocation's guard zone
 *   was written; not_kernel: an output was computed by PyTorch ops alone; cuda: a CUDA error
 *   (the engine then asks the driver whether the context is lost); skip: this case cannot be
 *   checked for a Python candidate (the crosscheck's call returned None), with why.
 *
 * Allocator (exported by libkbxpy.so for torch.cuda.memory.CUDAPluggableAllocator): every block
 * torch hands the candidate comes from kbx_torch_alloc: guard zones on both sides, the body
 * poisoned with all-ones bytes (NaN in every float type) while poisoning is on. Freed blocks are
 * cached by size, so a timed call costs no cuMemAlloc once warm.
 */
#ifndef KBX_PYHOST_H
#define KBX_PYHOST_H

#include <stddef.h>
#include <sys/types.h>

#define KBX_PY_ABI 1

enum { KBX_PY_TIMED = 0, KBX_PY_CHECKED = 1 };

struct kbx_py_callbacks {
	int abi;   /* KBX_PY_ABI */
	int (*load)(const char *request, char *out, size_t outlen);
	int (*bind)(const char *binding, char *out, size_t outlen);
	void (*unbind)(int handle);
	int (*call)(int handle, int mode, char *out, size_t outlen);
};

/* Serve requests on stdin, events on stdout, until stdin closes; the process's exit status. */
int kbx_py_main(const struct kbx_py_callbacks *cb);

/* The allocator torch uses inside the worker. */
void *kbx_torch_alloc(ssize_t size, int device, void *stream);
void kbx_torch_free(void *ptr, ssize_t size, int device, void *stream);
/* Poison new blocks (1, the default) or not (0: while timing). */
void kbx_alloc_poison(int on);
/* Check the guard zones of every live block and of blocks freed since the last check; 0 when all
 * are intact, else the number of damaged blocks with a one-line description in out. */
int kbx_alloc_check(char *out, size_t outlen);
/* Live blocks and bytes (for tests and the log). */
void kbx_alloc_stats(long long *blocks, long long *bytes);

#endif
