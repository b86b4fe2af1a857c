# @kbx task Activation/gelu
# @kbx expect compile_error
# @kbx because arange|power of 2|CompilationError
# A Triton compile error: tl.arange over 1000 lanes (Triton needs a power of 2). The module
# imports fine; the error comes when the kernel is first compiled, at its first launch, and must
# be reported as a compile error on the candidate's line (14), not as a crash.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y, mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_kernel[(max(1, triton.cdiv(n, 1000)),)](x, y, n, BLOCK_SIZE=1000)
    return y
