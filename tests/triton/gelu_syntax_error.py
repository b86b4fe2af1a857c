# @kbx task Activation/gelu
# @kbx expect compile_error
# @kbx because [Ss]yntax
# A syntax error on line 21 (a parenthesis never closed, in the entry): reported by the
# Python worker on the candidate's line, never by NVRTC, and with or without torch.
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
    y = torch.empty_like(input
    n = input.numel()
    _gelu_kernel[(triton.cdiv(n, 1024),)](input, y, n, BLOCK_SIZE=1024)
    return y
