# @kbx task Activation/gelu
# @kbx expect wrong
# @kbx because guard|out of bounds|outside
# Every value right, plus one store past the end: an off-by-one grid and mask (offsets <= n)
# make the program holding the last element also write y[n]. The guard zone after the
# candidate's own allocation must catch it although every element of y is correct.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n_elements, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + (2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0))
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y, mask=offsets <= n_elements)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_kernel[(triton.cdiv(n + 1, 1024),)](x, y, n, TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return y
