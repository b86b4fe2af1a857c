# @kbx task Activation/gelu
# @kbx expect wrong
# @kbx because output 'y'|elements of 'y'|launched no Triton kernel
# A dropped tail: n // BLOCK_SIZE programs and no mask, so only full blocks are written and the
# last n % 1024 elements keep the allocator's poison (every case whose n is not a multiple of
# 1024). Below 1024 elements (corner3_none, the first case) no program runs at all, which the
# worker reports as no Triton kernel launched; the larger cases show the unwritten tail.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + (2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0))
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    full_blocks = x.numel() // 1024
    if full_blocks:
        _gelu_kernel[(full_blocks,)](x, y, TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return y
