# @kbx task Random/rand
# @kbx expect wrong
# @kbx because outside \[0, 1\)
# A draw on the wrong interval: 2 * tl.rand, uniform on [0, 2). Stochastic or not, a random
# output is judged by its law: the distribution verifier must find values outside [0, 1).
import torch
import triton
import triton.language as tl


@triton.jit
def _rand_kernel(y_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2.0 * tl.rand(seed, offs), mask=offs < n)


def rand(*size, generator=None, out=None, dtype=None, layout=torch.strided, device=None,
         requires_grad=False, pin_memory=False):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    y = torch.empty(size, dtype=dtype or torch.float32, device=device or "cuda")
    n = y.numel()
    if n:
        _rand_kernel[(triton.cdiv(n, 1024),)](y, n, 7, BLOCK=1024)
    return y
