"""Stand-ins for torch and triton, enough for the worker's logic to run without either.

FakeTriton builds a module tree (triton.runtime.jit.JITFunction, triton.runtime.autotuner.
Autotuner/Heuristics, triton.compiler.errors.CompilationError) whose @jit records its
function; FakeRuntime is a runtime.Runtime that "imports" these instead of the real thing.
"""
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))


def make_triton():
    """Install fake triton modules in sys.modules and return the top-level one."""
    triton = types.ModuleType("triton")
    runtime = types.ModuleType("triton.runtime")
    jit_mod = types.ModuleType("triton.runtime.jit")
    auto_mod = types.ModuleType("triton.runtime.autotuner")
    compiler = types.ModuleType("triton.compiler")
    errors = types.ModuleType("triton.compiler.errors")
    language = types.ModuleType("triton.language")

    class JITFunction:
        def __init__(self, fn):
            self.fn = fn
            self.__name__ = fn.__name__

        def run(self, *args, grid=None, warmup=False, **kwargs):
            return ("ran", self.fn.__name__)

        def __getitem__(self, grid):
            return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    class Autotuner:
        def __init__(self, fn, configs):
            self.fn = fn
            self.configs = configs
            self.cache = {}
            self.base_fn = fn.fn

        def run(self, *args, **kwargs):
            cfg = self.configs[0] if len(self.configs) == 1 else self.cache.setdefault("k", self.configs[-1])
            return self.fn.run(*args, cfg=cfg, **kwargs)

        def __getitem__(self, grid):
            return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    class Heuristics(Autotuner):
        pass

    class CompilationError(Exception):
        def __init__(self, src, node, error_message):
            super().__init__(f"at {node.lineno}:{node.col_offset}:\n{src}\n{error_message}")
            self.src, self.node, self.error_message = src, node, error_message

    CompilationError.__module__ = "triton.compiler.errors"

    def jit(fn):
        return JITFunction(fn)

    def autotune(configs, key=None):
        return lambda jf: Autotuner(jf, configs)

    jit_mod.JITFunction = JITFunction
    auto_mod.Autotuner, auto_mod.Heuristics = Autotuner, Heuristics
    errors.CompilationError = CompilationError
    triton.jit, triton.autotune, triton.cdiv = jit, autotune, lambda a, b: (a + b - 1) // b
    triton.runtime, runtime.jit, runtime.autotuner = runtime, jit_mod, auto_mod
    triton.compiler, compiler.errors, triton.language = compiler, errors, language
    language.constexpr = int
    for m in (triton, runtime, jit_mod, auto_mod, compiler, errors, language):
        sys.modules[m.__name__] = m
    return triton


class FakeRuntime:
    """runtime.Runtime's interface: import_torch/check_gpu/log/torch/triton."""

    def __init__(self, missing=None, no_gpu=None):
        self.missing = missing
        self.no_gpu = no_gpu
        self.torch = None
        self.triton = None
        self.log = []

    def import_torch(self):
        from kbxpy.runtime import Missing
        if self.missing:
            raise Missing(self.missing)
        self.torch = sys.modules.setdefault("torch", types.ModuleType("torch"))
        self.triton = make_triton()
        return self.torch, self.triton

    def check_gpu(self, has_gpu, device):
        from kbxpy.runtime import Missing
        if self.no_gpu or not has_gpu:
            raise Missing(self.no_gpu or "no GPU")


class FakeTensor:
    """A tensor-like with dtype, shape, numel, device, data_ptr."""

    def __init__(self, dtype, shape, ptr=0x1000, device="cuda"):
        self.dtype, self.shape, self.ptr = dtype, tuple(shape), ptr
        self.device = types.SimpleNamespace(type=device, __str__=lambda: device)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def data_ptr(self):
        return self.ptr

    def is_contiguous(self):
        return True

    def untyped_storage(self):
        n = self.numel() * 4
        return types.SimpleNamespace(data_ptr=lambda: self.ptr, nbytes=lambda: n)


def fake_torch_for_outputs():
    torch = types.ModuleType("torch")
    torch.Tensor = FakeTensor
    torch.float32, torch.float64 = "torch.float32", "torch.float64"
    return torch
