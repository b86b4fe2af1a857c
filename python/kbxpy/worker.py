"""The four callbacks of core/pyhost.h (load, bind, unbind, call) as methods of one Worker.

Each public method takes and returns plain Python values: load/call return (status, answer
dict), bind returns (handle or -1, answer dict). cabi.py turns them into C callbacks and writes
the answers; every exception is caught there too, so nothing raises through ctypes. The Worker
holds one candidate at a time: load() forgets the previous one.
"""
import json
import os
import sys
import traceback

from . import autotune, hooks, outputs, signature, source, tasks
from .answer import one_line
from .dtypes import wrap
from .provenance import Provenance
from .runtime import Missing

TIMED, CHECKED = 0, 1

CUDA_MARKERS = ("cuda error", "illegal memory access", "device-side assert", "unspecified launch failure",
                "misaligned address", "illegal instruction", "an illegal", "cudaerror", "cuda_error",
                "triton error [cuda]", "out of memory")


class Binding:
    """One problem's buffers as tensors, and what the task's call needs."""

    def __init__(self):
        self.args = []
        self.tensors = {}        # name -> tensor over the engine's buffer
        self.outputs = {}        # name -> (dir, tensor) for out/inout
        self.refs = {}           # name -> reference tensor (ref_ptr)
        self.a = {}
        self.stream = None
        self.call = None
        self.stochastic = False  # the task's crosscheck.py: this case's outputs are random draws


class Worker:
    def __init__(self, runtime, alloc_check=None):
        """runtime: runtime.Runtime (or a stand-in with import_torch/check_gpu/log);
        alloc_check: () -> (damaged count, message), None where there is no kbx allocator."""
        self.runtime = runtime
        self.alloc_check = alloc_check
        self.loaded = None
        self.entry = None
        self.request = {}
        self.bindings = {}
        self.next_handle = 0
        self.joins = False      # the candidate put work on other streams: timed calls wait for it

    # ------------------------------------------------------------------ load

    def load(self, request):
        req = json.loads(request) if isinstance(request, (str, bytes)) else dict(request)
        self._forget()
        self.request = req
        self.joins = False
        text = req.get("source") or ""
        name = req.get("source_name") or "candidate.py"
        log = []
        try:
            code = source.check_syntax(text, name)
            try:
                torch, triton = self.runtime.import_torch()
                self.runtime.check_gpu(req.get("has_gpu", True), req.get("device", 0) or 0)
            except Missing as e:
                return 1, {"verdict": "not_run", "message": str(e), "line": 0, "col": 0,
                           "log": list(self.runtime.log) + [f"syntax of {name}: ok", str(e)]}
            log += self.runtime.log
            self.loaded = source.execute(code, text, name)
            entry = source.find_entry(self.loaded.module, req.get("entry"), req.get("signature"), name)
            sig = req.get("signature")
            if sig:
                try:
                    problems, warnings = signature.check(entry, sig)
                except signature.SignatureError as e:
                    problems, warnings = [], [str(e)]
                log += [f"signature: {w}" for w in warnings]
                if problems:
                    expected = (req.get("entry") or entry.__name__) + sig
                    raise source.CandidateError(
                        "abi_error", f"{signature.describe(entry)} cannot take the task's call "
                        f"{expected}: {'; '.join(problems)}", _def_line(entry, name))
            kernels, autotuned = hooks.inventory(self.loaded.module, triton)
            self.entry = entry
            log.append(f"entry: {signature.describe(entry)}")
            log.append("kernels: " + (", ".join(kernels) if kernels else "none (@triton.jit defines none)"))
            if autotuned:
                log.append("autotuned: " + ", ".join(autotuned))
            return 0, {"entry": entry.__name__, "kernels": kernels, "autotuned": autotuned, "log": log}
        except source.CandidateError as e:
            self._forget()
            return 1, {"verdict": e.verdict, "message": e.message, "line": e.line, "col": e.col,
                       "log": log + e.log}

    def _forget(self):
        source.unload(self.loaded)
        self.loaded = None
        self.entry = None

    # ------------------------------------------------------------------ bind

    def bind(self, binding):
        spec = json.loads(binding) if isinstance(binding, (str, bytes)) else dict(binding)
        torch = self.runtime.torch
        if torch is None:
            return -1, {"message": "bind before a successful load"}
        device = int(self.request.get("device", 0) or 0)
        b = Binding()
        b.args = list(spec.get("args", []))
        for x in b.args:
            t = wrap(torch, x.get("ptr", 0), x["dtype"], x.get("shape", []), device)
            b.tensors[x["name"]] = t
            if x["dir"] in ("out", "inout"):
                b.outputs[x["name"]] = (x["dir"], t)
                if x.get("ref_ptr") is not None:
                    b.refs[x["name"]] = wrap(torch, x["ref_ptr"], x["dtype"], x.get("shape", []), device)
        stream = int(spec.get("stream", 0) or 0)
        b.stream = torch.cuda.ExternalStream(stream, device=device) if stream else \
            torch.cuda.default_stream(device)
        b.a = tasks.build_a(b.args, b.tensors, spec.get("bindings", {}))
        task_dir = self.request.get("task_dir") or ""
        call, stochastic = tasks.load_task(task_dir) if task_dir else (tasks.default_call, tasks.never_stochastic)
        b.call = tasks.DefaultCall().arrange(b.args) if call is tasks.default_call else call
        b.stochastic = bool(stochastic(b.a))
        handle = self.next_handle
        self.next_handle += 1
        self.bindings[handle] = b
        return handle, {}

    def unbind(self, handle):
        self.bindings.pop(int(handle), None)

    # ------------------------------------------------------------------ call

    def call(self, handle, mode):
        b = self.bindings.get(int(handle))
        if b is None:
            return 1, {"kind": "exception", "message": f"no binding {handle}", "line": 0, "log": []}
        if self.entry is None:
            return 1, {"kind": "exception", "message": "no candidate loaded", "line": 0, "log": []}
        torch = self.runtime.torch
        torch.cuda.set_stream(b.stream)
        if int(mode) == TIMED:
            try:
                b.call(self.entry, b.a, torch)
                if self.joins:
                    # work on other streams than the call's must be inside the timing events
                    torch.cuda.synchronize()
            except Exception as e:
                return 1, self._failure(e, [])
            return 0, {"log": []}
        return self._checked(b, torch)

    def _checked(self, b, torch):
        log = []
        triton = self.runtime.triton
        saved = {n: t.clone() for n, (d, t) in b.outputs.items() if d == "inout"}
        prov = Provenance()
        for x in b.args:
            t = b.tensors[x["name"]]
            key, size = hooks.storage_key(torch, t)
            prov.bind(key, size, x["name"], x["dir"])
        watch = hooks.Watch(torch, triton, prov, b.stream)
        called = []

        def entry(*args, **kwargs):
            called.append(1)
            return self.entry(*args, **kwargs)
        try:
            with watch:
                result = b.call(entry, b.a, torch)
        except Exception as e:
            return 1, self._failure(e, watch.log)
        log += watch.log
        if watch.side_streams and not self.joins:
            self.joins = True
            log.append(f"work went to {len(watch.side_streams)} CUDA stream(s) other than the one the call was made "
                       "on: each timed call now synchronises the device before it returns, so that this work is "
                       "inside the timing (a few microseconds more per call)")
        if result is None:
            # nothing ran: at a perf row there is nothing to time either ("uncalled")
            return 1, {"kind": "skip", "uncalled": not called, "message": "the task's crosscheck.py cannot "
                       "call a PyTorch-style function for this case", "line": 0, "log": log}
        produced = {}
        try:
            log += outputs.copy_outputs(torch, result, b.outputs)
            for name, value in (result.items() if isinstance(result, dict) else []):
                if name in b.outputs and isinstance(value, torch.Tensor):
                    produced[name] = hooks.storage_key(torch, value)[0]
            torch.cuda.synchronize()
            if watch.autotuners:
                def run_once():
                    for n, t in saved.items():
                        b.outputs[n][1].copy_(t)
                    res = b.call(self.entry, b.a, torch)
                    outputs.copy_outputs(torch, res, b.outputs)
                    torch.cuda.synchronize()
                autotune.sweep(torch, triton, watch.autotuners, run_once,
                               {n: t for n, (d, t) in b.outputs.items()}, b.refs, log)
        except outputs.OutputError as e:
            return 1, {"kind": "output", "message": str(e), "line": 0, "log": log}
        except Exception as e:
            fail = self._failure(e, log)
            return 1, fail
        if self.alloc_check is not None:
            damaged, what = self.alloc_check()
            if damaged:
                return 1, {"kind": "guard", "message": what or f"{damaged} allocation(s) written out of bounds",
                           "line": 0, "log": log}
        # a case with no element to read or none to write (an empty input or output) needs no
        # kernel: launching none is right there, and filling an output with a PyTorch op too
        ins = [b.tensors[x["name"]] for x in b.args if x["dir"] == "in"]
        outs = [t for (d, t) in b.outputs.values()]
        idle = (bool(ins) and all(t.numel() == 0 for t in ins)) or (bool(outs) and all(t.numel() == 0 for t in outs))
        problem, plog = prov.judge(produced, idle)
        status, ans = provenance_answer(problem, log + plog, bool(self.request.get("allow_pytorch")))
        if status == 0 and b.stochastic:
            # its outputs have the task's shapes and came from its kernels; their values cannot
            # be held to kbx's reference
            return 1, {"kind": "skip", "message": "its outputs on this case come from a random generator (the "
                       "task's crosscheck.py says stochastic), which kbx's reference does not reproduce "
                       "elementwise", "line": 0, "log": ans.get("log", [])}
        return status, ans

    # ------------------------------------------------------------------ errors

    def _failure(self, e, log):
        """The answer for an exception raised while calling the candidate."""
        name = self.loaded.source_name if self.loaded else "candidate.py"
        text = self.loaded.text if self.loaded else ""
        log = list(log) + source.format_exception(e, name)
        config = getattr(e, "kbx_autotune_config", None)
        where = f" with {config}" if config else ""
        comp = triton_compile_error(e)
        if comp is not None:
            line = source.triton_error_line(comp, text) or source.candidate_line(e, name)
            inner = getattr(comp, "error_message", None) or _last_line(comp)
            kernel = _src_name(comp)
            msg = f"triton compilation error{' in ' + kernel if kernel else ''}{where}: {one_line(inner)}"
            if line:
                msg += f" ({name} line {line})"
            return {"kind": "compile", "message": msg, "line": line, "log": log}
        line = source.candidate_line(e, name)
        text_e = f"{type(e).__name__}: {one_line(e)}"
        kind = "cuda" if is_cuda_error(e) else "exception"
        msg = text_e + where + (f" ({name} line {line})" if line else "")
        return {"kind": kind, "message": msg, "line": line, "log": log}


def provenance_answer(problem, log, allow_pytorch):
    """A checked call's answer from provenance's problem (None: the outputs came from the
    candidate's Triton kernels). With allow_pytorch (kbx run --allow-pytorch, a task cross-checked
    against a PyTorch function) the problem is logged and the outputs are judged all the same."""
    if not problem:
        return 0, {"log": log}
    if allow_pytorch:
        return 0, {"log": log + [f"allowed by --allow-pytorch: {problem}"]}
    return 1, {"kind": "not_kernel", "message": problem, "line": 0, "log": log}


def is_cuda_error(e):
    """A CUDA error (the context may be lost) rather than an ordinary exception."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if type(e).__name__ in ("AcceleratorError", "CudaError", "CUDARuntimeError"):
            return True
        if isinstance(e, RuntimeError):
            low = str(e).lower()
            if any(m in low for m in CUDA_MARKERS):
                return True
        e = e.__cause__ or e.__context__
    return False


def triton_compile_error(e):
    """The deepest Triton CompilationError in e's chain (a kernel's call of a failing @jit helper
    chains the helper's error under the call site's), found by class name so that no triton
    import is needed; None when there is none."""
    seen = set()
    found = None
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if any(cls.__name__ == "CompilationError" and "triton" in (cls.__module__ or "")
               for cls in type(e).__mro__):
            found = e
        e = e.__cause__ or e.__context__
    return found


def _last_line(e):
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return lines[-1] if lines else type(e).__name__


def _src_name(e):
    src = getattr(e, "src", None)
    if not isinstance(src, str):
        src = getattr(src, "src", None)
    if isinstance(src, str):
        m = source._DEF.search(src)
        if m:
            return m.group(1)
    return None


def _def_line(fn, source_name):
    code = getattr(fn, "__code__", None)
    if code is not None and code.co_filename == source_name:
        return code.co_firstlineno
    return 0


def internal_error(where, e):
    """One line for an error of the worker itself (a bug in kbxpy, not in the candidate)."""
    tb = traceback.extract_tb(e.__traceback__)
    at = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
    print(f"kbx python worker: {where}: {type(e).__name__}: {e}{at}", file=sys.stderr)
    return f"kbx's Python worker failed in {where}: {type(e).__name__}: {one_line(e)}{at}"
