# @kbx task Activation/gelu
# @kbx expect wrong
# @kbx because launched no Triton kernel|computed by PyTorch ops
# No Triton kernel at all: the output is PyTorch's own F.gelu, so every value is right. A
# candidate whose outputs come from PyTorch compute ops is not a kernel and must not pass (the
# decorated kernel below is never launched).
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _unused_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def gelu(input, approximate='none'):
    return F.gelu(input, approximate=approximate)
