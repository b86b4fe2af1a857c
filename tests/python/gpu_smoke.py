#!/usr/bin/env python3
"""GPU smoke test of the Python worker's callbacks, without kbx's C side.

Drives load/bind/call/unbind through the same ctypes function pointers libkbxpy.so calls
(kbxpy.cabi), with bind JSON pointing at torch-allocated buffers, for Triton candidates written
for this test (elementwise, PyTorch-only, no-op kernel plus PyTorch, a Triton compile error, a
wrong dtype, an exception, an autotuned kernel with one wrong config, an empty problem, an
illegal address last) and KernelBenchX's two example candidates read from its checkout.
Needs a CUDA GPU, torch and triton. Prints one PASS/FAIL line per check and exits 1 on any FAIL.

    python3 tests/python/gpu_smoke.py [--kbx DIR] [--pylib PATH/libkbxpy.so] [--no-fault]

--kbx: KernelBenchX checkout holding examples/ (default ../shared/kbx, then /work/shared/kbx);
--pylib: also install kbx's allocator and check guard zones (a candidate writing past its own
allocation must get kind "guard").
"""
import argparse
import ctypes
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

from kbxpy import cabi  # noqa: E402
from kbxpy.runtime import Runtime  # noqa: E402
from kbxpy.worker import Worker  # noqa: E402

FAILS = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f"  [{detail}]" if detail and not ok else ""), flush=True)
    if not ok:
        FAILS.append(name)


class Host:
    """The engine's side of pyhost.h, in Python: calls the callbacks through their C pointers."""

    def __init__(self, worker):
        self.cb = cabi.make_callbacks(worker)
        self.buf = ctypes.create_string_buffer(65536)

    def load(self, text, task, entry, signature, name="cand.py"):
        req = {"source": text, "source_name": name, "task": task,
               "task_dir": os.path.join(REPO, "tasks", task), "entry": entry, "signature": signature,
               "device": 0, "has_gpu": True}
        rc = self.cb.load(json.dumps(req).encode(), ctypes.addressof(self.buf), len(self.buf))
        return rc, cabi.decode(self.buf)

    def bind(self, args, bindings, stream=None):
        import torch
        if stream is None:
            stream = torch.cuda.current_stream().cuda_stream
        spec = {"stream": stream, "args": args, "bindings": bindings}
        h = self.cb.bind(json.dumps(spec).encode(), ctypes.addressof(self.buf), len(self.buf))
        return h, cabi.decode(self.buf)

    def call(self, handle, mode):
        rc = self.cb.call(handle, mode, ctypes.addressof(self.buf), len(self.buf))
        return rc, cabi.decode(self.buf)

    def unbind(self, handle):
        self.cb.unbind(handle)


def arg(name, direction, dtype, t, ref=None):
    d = {"name": name, "dir": direction, "dtype": dtype, "shape": list(t.shape), "ptr": t.data_ptr(),
         "bytes": t.numel() * t.element_size()}
    if ref is not None:
        d["ref_ptr"] = ref.data_ptr()
    return d


# ------------------------------------------------------------------ candidates written for this test

PRELUDE = "import torch\nimport triton\nimport triton.language as tl\n\n\n"

GELU_KERNEL = PRELUDE + '''@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + (2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0))
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


def gelu(input, approximate="none"):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, TANH=approximate == "tanh", BLOCK=1024)
    return y
'''

TORCH_ONLY = PRELUDE + '''def gelu(input, approximate="none"):
    return torch.nn.functional.gelu(input, approximate=approximate)
'''

NOOP_PLUS_TORCH = PRELUDE + '''@triton.jit
def _touch(p, n):
    pass


def gelu(input, approximate="none"):
    scratch = torch.empty(16, device=input.device)
    _touch[(1,)](scratch, 16)
    return torch.nn.functional.gelu(input, approximate=approximate)
'''

COMPILE_ERROR = PRELUDE + '''@triton.jit
def _bad(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * no_such_name, mask=offs < n)


def gelu(input, approximate="none"):
    y = torch.empty_like(input)
    _bad[(triton.cdiv(input.numel(), 256),)](input, y, input.numel(), BLOCK=256)
    return y
'''
COMPILE_ERROR_LINE = COMPILE_ERROR.splitlines().index("    tl.store(y_ptr + offs, x * no_such_name, mask=offs < n)") + 1

WRONG_DTYPE = GELU_KERNEL.replace("    return y\n", "    return y.double()\n")

RAISES = GELU_KERNEL.replace("    x = input.contiguous()\n", "    x = input.contiguous()\n    x.no_such_method()\n")
RAISES_LINE = RAISES.splitlines().index("    x.no_such_method()") + 1

AUTOTUNED = PRELUDE + '''@triton.autotune(configs=[triton.Config({"BLOCK": 256, "WRONG": 0}), triton.Config({"BLOCK": 512, "WRONG": 1}),
                         triton.Config({"BLOCK": 1024, "WRONG": 0})], key=["n"])
@triton.jit
def _gelu_tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr, WRONG: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    if WRONG:
        y = tl.where(offs % 7 == 3, y + 1.0, y)
    tl.store(y_ptr + offs, y, mask=mask)


def gelu(input, approximate="none"):
    y = torch.empty_like(input)
    n = input.numel()
    _gelu_tuned[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](input, y, n)
    return y
'''

OUT_OF_BOUNDS_OWN = PRELUDE + '''@triton.jit
def _gelu_oob(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)))


def gelu(input, approximate="none"):
    y = torch.empty_like(input)
    _gelu_oob[(triton.cdiv(input.numel(), 1024),)](input, y, input.numel(), BLOCK=1024)
    return y
'''

ILLEGAL_ADDRESS = PRELUDE + '''@triton.jit
def _wild(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs + (1 << 40), 1.0, mask=offs < n)


def gelu(input, approximate="none"):
    y = torch.empty_like(input)
    _wild[(triton.cdiv(input.numel(), 256),)](y, input.numel(), BLOCK=256)
    return y
'''

GELU_SIG = "(input, approximate='none')"


def gelu_problem(torch, n, approximate):
    x = torch.randn(n, device="cuda", dtype=torch.float32)
    y = torch.full((n,), float("nan"), device="cuda", dtype=torch.float32)
    ref = torch.nn.functional.gelu(x, approximate=("none", "tanh")[approximate])
    args = [arg("x", "in", "f32", x), arg("y", "out", "f32", y, ref)]
    return x, y, ref, args, {"n": n, "approximate": approximate}


def run_gelu(host, torch, label, text, n=10007, approximate=0, mode=1):
    rc, ans = host.load(text, "Activation/gelu", "gelu", GELU_SIG)
    if rc != 0:
        return rc, ans, None, None
    x, y, ref, args, bindings = gelu_problem(torch, n, approximate)
    h, bans = host.bind(args, bindings)
    if h < 0:
        return 1, bans, None, None
    rc, cans = host.call(h, mode)
    try:
        torch.cuda.synchronize()
    except Exception:  # the illegal-address candidate: its error was the call's answer
        pass
    host.unbind(h)
    return rc, cans, y, ref


def wrap_checks(torch):
    from kbxpy.dtypes import DTYPES, wrap
    for name, (attr, size) in DTYPES.items():
        dt = getattr(torch, attr)
        for shape in ([5, 3], [], [0]):
            if dt == torch.bool:
                t = torch.rand(shape, device="cuda") > 0.5
            elif dt.is_complex:
                t = torch.randn(shape, device="cuda", dtype=dt)
            elif dt.is_floating_point:
                t = torch.randn(shape, device="cuda").to(dt)
            else:
                t = torch.randint(-3 if name != "u8" else 0, 100, shape, device="cuda").to(dt)
            w = wrap(torch, t.data_ptr(), name, shape, 0)
            ok = w.dtype == dt and list(w.shape) == shape and torch.equal(w, t) and \
                (t.numel() == 0 or w.data_ptr() == t.data_ptr())
            check(f"wrap {name} {shape} aliases the buffer", ok, f"{w.dtype} {list(w.shape)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", default=None)
    ap.add_argument("--pylib", default=os.environ.get("KBX_PYLIB"))
    ap.add_argument("--no-fault", action="store_true", help="skip the illegal-address candidate")
    opts = ap.parse_args()
    kbx = opts.kbx or next((d for d in (os.path.join(REPO, "..", "shared", "kbx"), "/work/shared/kbx")
                            if os.path.isdir(d)), None)

    alloc_check = None
    if opts.pylib:
        lib = cabi.open_library(opts.pylib)
        alloc_check = cabi.alloc_checker(lib)
    runtime = Runtime(opts.pylib)
    worker = Worker(runtime, alloc_check)
    host = Host(worker)

    # load first: it imports torch and installs the allocator before CUDA starts
    rc, ans = host.load(GELU_KERNEL, "Activation/gelu", "gelu", GELU_SIG)
    check("load elementwise candidate", rc == 0 and ans.get("kernels") == ["_gelu_kernel"], ans)
    import torch
    import triton
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name(0)}")
    print("\n".join(ans.get("log", [])))
    from triton.runtime.jit import JITFunction
    check("triton JITFunction.run exists (launch hook)", callable(getattr(JITFunction, "run", None)))
    torch.manual_seed(0)
    wrap_checks(torch)

    for approximate in (0, 1):
        rc, ans, y, ref = run_gelu(host, torch, "gelu", GELU_KERNEL, approximate=approximate)
        ok = rc == 0 and torch.allclose(y, ref, rtol=1e-5, atol=1e-5)
        check(f"elementwise gelu approximate={approximate}: CHECKED ok, output copied into the bound buffer", ok, ans)
        check("  log names the kernel", any("_gelu_kernel" in ln for ln in ans.get("log", [])), ans.get("log"))
        if approximate == 0:
            print("info: CHECKED log: " + " / ".join(ans.get("log", [])))
    rc, ans, y, ref = run_gelu(host, torch, "gelu", GELU_KERNEL, mode=0)
    check("elementwise gelu TIMED ok", rc == 0, ans)
    rc, ans, y, ref = run_gelu(host, torch, "gelu", GELU_KERNEL, n=0)
    check("empty problem (n = 0)", rc == 0, ans)
    rc, ans, y, ref = run_gelu(host, torch, "gelu", GELU_KERNEL, n=1)
    check("one element", rc == 0 and torch.allclose(y, ref), ans)

    rc, ans, *_ = run_gelu(host, torch, "torch only", TORCH_ONLY)
    check("PyTorch-only candidate -> not_kernel", rc != 0 and ans.get("kind") == "not_kernel", ans)
    print(f"info: {ans.get('message')} / " + " / ".join(ans.get("log", [])))
    rc, ans, *_ = run_gelu(host, torch, "noop", NOOP_PLUS_TORCH)
    check("no-op kernel + PyTorch gelu -> not_kernel naming gelu",
          rc != 0 and ans.get("kind") == "not_kernel" and "gelu" in ans.get("message", ""), ans)
    rc, ans, *_ = run_gelu(host, torch, "compile error", COMPILE_ERROR)
    check(f"Triton compile error -> compile on line {COMPILE_ERROR_LINE}",
          rc != 0 and ans.get("kind") == "compile" and ans.get("line") == COMPILE_ERROR_LINE and "triton compilation error" in ans.get("message", ""), ans)
    rc, ans, *_ = run_gelu(host, torch, "dtype", WRONG_DTYPE)
    check("float64 result -> output", rc != 0 and ans.get("kind") == "output" and "float64" in ans.get("message", ""), ans)
    rc, ans, *_ = run_gelu(host, torch, "raises", RAISES)
    check(f"exception -> line {RAISES_LINE}", rc != 0 and ans.get("kind") == "exception" and ans.get("line") == RAISES_LINE, ans)
    rc, ans = host.load("def gelu(input:\n", "Activation/gelu", "gelu", GELU_SIG)
    check("syntax error -> compile_error line 1", rc != 0 and ans.get("verdict") == "compile_error" and ans.get("line") == 1, ans)
    rc, ans = host.load(GELU_KERNEL.replace("def gelu(input,", "def gelu(x,"), "Activation/gelu", "gelu", GELU_SIG)
    check("renamed parameter -> abi_error", rc != 0 and ans.get("verdict") == "abi_error", ans)

    rc, ans, y, ref = run_gelu(host, torch, "autotuned", AUTOTUNED)
    wrong_kept = y is not None and not torch.allclose(y, ref, rtol=1e-5, atol=1e-5)
    check("autotuned: every config run, the wrong one's outputs kept",
          rc == 0 and wrong_kept and any("config 2/3" in ln and "kept" in ln for ln in ans.get("log", [])), ans)

    # persistent worker: many loads in one process, timings of the thin path
    rc, ans = host.load(GELU_KERNEL, "Activation/gelu", "gelu", GELU_SIG)
    x, y, ref, args, bindings = gelu_problem(torch, 1 << 20, 0)
    h, _ = host.bind(args, bindings)
    host.call(h, 0)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(200):
        host.call(h, 0)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    entry = worker.entry
    for _ in range(200):
        entry(x)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    host.unbind(h)
    print(f"info: TIMED call through the callbacks {1e6 * (t1 - t0) / 200:.1f} us, direct entry call "
          f"{1e6 * (t2 - t1) / 200:.1f} us (n = 2^20)")

    if kbx and os.path.isdir(os.path.join(kbx, "examples")):
        with open(os.path.join(kbx, "examples", "predictions.gelu.jsonl")) as fh:
            item = json.loads(fh.readline())
        for approximate in (0, 1):
            rc, ans, y, ref = run_gelu(host, torch, "kbx gelu", item["predict"], approximate=approximate)
            check(f"KernelBenchX example gelu approximate={approximate}",
                  rc == 0 and torch.allclose(y, ref, rtol=1e-5, atol=1e-5), ans)
        with open(os.path.join(kbx, "examples", "matmul_w8a8.py")) as fh:
            text = fh.read()
        rc, ans = host.load(text, "Quantization/matmul_w8a8", "matmul_w8a8", "(input, weight)", "matmul_w8a8.py")
        check("KernelBenchX example matmul_w8a8 loads", rc == 0, ans)
        m, k, n = 128, 256, 96
        a = torch.randn(m, k, device="cuda")
        w = torch.randn(k, n, device="cuda")
        y = torch.full((m, n), float("nan"), device="cuda")
        ref = a @ w
        h, _ = host.bind([arg("input", "in", "f32", a), arg("weight", "in", "f32", w), arg("y", "out", "f32", y, ref)],
                         {"m": m, "k": k, "n": n})
        rc, ans = host.call(h, 1)
        cos = torch.nn.functional.cosine_similarity(y.reshape(-1), ref.reshape(-1), dim=0).item()
        check("KernelBenchX example matmul_w8a8: CHECKED ok, close to input @ weight", rc == 0 and cos > 0.99,
              f"{ans} cosine {cos}")
        host.unbind(h)
    else:
        check("KernelBenchX examples found (--kbx DIR)", False, f"no examples/ under {kbx}")

    if alloc_check is not None:
        rc, ans, *_ = run_gelu(host, torch, "oob", OUT_OF_BOUNDS_OWN, n=1000)
        check("store past the candidate's own allocation -> guard", rc != 0 and ans.get("kind") == "guard", ans)
    else:
        print("info: no --pylib: guard zones not checked")

    if not opts.no_fault:  # last: an illegal address poisons the CUDA context
        rc, ans, *_ = run_gelu(host, torch, "illegal", ILLEGAL_ADDRESS)
        check("illegal address -> cuda", rc != 0 and ans.get("kind") == "cuda", ans)

    print(f"{'FAIL' if FAILS else 'PASS'}: {len(FAILS)} failure(s)" + (": " + "; ".join(FAILS) if FAILS else ""))
    return 1 if FAILS else 0


if __name__ == "__main__":
    try:
        status = main()
    except Exception:
        import traceback
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    os._exit(status)
