"""torch and triton, imported lazily, and the allocators kbx puts under them.

Nothing imports torch before load() asks for it: a syntax error is reported without it, and
kbx's allocator (libkbxpy.so's kbx_torch_alloc / kbx_torch_free) must become torch's CUDA
allocator before torch initialises CUDA. Triton's global scratch comes from torch (so from
kbx's allocator too). Triton's cache folder is whatever TRITON_CACHE_DIR the parent set.
"""
import sys


class Missing(Exception):
    """What is missing to run a Python candidate here (a not_run message)."""


class Runtime:
    def __init__(self, pylib_path=None):
        self.pylib_path = pylib_path
        self.torch = None
        self.triton = None
        self.allocator_installed = False
        self.log = []

    def import_torch(self):
        """Import torch and triton once; install the allocators. Raises Missing."""
        if self.torch is not None and self.triton is not None:
            return self.torch, self.triton
        exe = sys.executable or "python3"
        try:
            import torch
        except ImportError as e:
            raise Missing(f"PyTorch is not installed for {exe} ({e})") from None
        except Exception as e:
            raise Missing(f"PyTorch cannot be imported by {exe}: {type(e).__name__}: {e}") from None
        self.torch = torch
        self._install_torch_allocator(torch)
        try:
            import triton
            import triton.language  # noqa: F401  (candidates use it; fail here, not in exec)
        except ImportError as e:
            raise Missing(f"Triton is not installed for {exe} ({e})") from None
        except Exception as e:
            raise Missing(f"Triton cannot be imported by {exe}: {type(e).__name__}: {e}") from None
        self.triton = triton
        self._install_triton_allocator(torch, triton)
        self.log.append(f"python {sys.version.split()[0]} ({exe}), torch {torch.__version__}, "
                        f"triton {getattr(triton, '__version__', '?')}")
        return torch, triton

    def _install_torch_allocator(self, torch):
        if self.allocator_installed or not self.pylib_path:
            if not self.pylib_path:
                self.log.append("no KBX_PYLIB: torch keeps its own allocator (no poison, no guard zones)")
            return
        try:
            alloc = torch.cuda.memory.CUDAPluggableAllocator(self.pylib_path, "kbx_torch_alloc", "kbx_torch_free")
            torch.cuda.memory.change_current_allocator(alloc)
            self._alloc = alloc  # kept alive for the life of the process
            self.allocator_installed = True
            self.log.append("torch allocator: kbx_torch_alloc (poisoned, guarded)")
        except Exception as e:  # torch already initialised CUDA, or an old torch
            self.log.append(f"torch allocator not replaced: {type(e).__name__}: {e}")

    def _install_triton_allocator(self, torch, triton):
        setter = getattr(triton, "set_allocator", None)
        if setter is None:
            return

        def scratch(size, alignment, stream):
            return torch.empty(int(size), dtype=torch.int8, device="cuda")

        try:
            setter(scratch)
            self._scratch = scratch
        except Exception as e:
            self.log.append(f"triton allocator not set: {type(e).__name__}: {e}")

    def check_gpu(self, has_gpu, device):
        """Raise Missing unless torch sees the GPU the engine uses."""
        torch = self.torch
        exe = sys.executable or "python3"
        if not has_gpu:
            raise Missing("no GPU: kbx found no CUDA device to run the candidate on")
        try:
            ok = torch.cuda.is_available()
            count = torch.cuda.device_count() if ok else 0
        except Exception as e:
            raise Missing(f"torch cannot use CUDA ({type(e).__name__}: {e})") from None
        if not ok or count == 0:
            built = getattr(getattr(torch, "version", None), "cuda", None)
            why = "torch was built without CUDA" if not built else "torch sees no CUDA device"
            raise Missing(f"{why} (torch {torch.__version__} for {exe})")
        if int(device) >= count:
            raise Missing(f"torch sees {count} CUDA device(s), not device {device}")
        torch.cuda.set_device(int(device))
