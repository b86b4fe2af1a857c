# @kbx task Random/rand
# @kbx expect pass
# A random draw: Triton's Philox (tl.rand) with a seed of its own, as KernelBenchX's rand(*size)
# takes none. Its values cannot equal kbx's reference, so the task's distribution verifier judges
# them (range [0, 1), mean, variance, Kolmogorov-Smirnov); the same-seed and other-seed checks of
# a CUDA candidate do not apply to a function without a seed.
import torch
import triton
import triton.language as tl

_calls = [0]


@triton.jit
def _rand_kernel(y_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.rand(seed, offs), mask=offs < n)


def rand(*size, generator=None, out=None, dtype=None, layout=torch.strided, device=None,
         requires_grad=False, pin_memory=False):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    y = torch.empty(size, dtype=dtype or torch.float32, device=device or "cuda")
    n = y.numel()
    _calls[0] += 1
    if n:
        _rand_kernel[(triton.cdiv(n, 1024),)](y, n, 12345 + _calls[0], BLOCK=1024)
    return y
