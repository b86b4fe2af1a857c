# @kbx task Activation/gelu
# @kbx expect wrong
# @kbx because modified input 'x'|input 'x'
# Computes in place: the kernel writes gelu(x) over x and the entry returns a copy of it. The
# returned values are right; the caller's input is destroyed, which kbx's check that in
# buffers are unchanged must report.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_inplace_kernel(x_ptr, n_elements, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + (2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0))
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(x_ptr + offsets, y, mask=mask)


def gelu(input, approximate='none'):
    n = input.numel()
    if n:
        _gelu_inplace_kernel[(triton.cdiv(n, 1024),)](input, n, TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return input.clone()
