# @kbx task Activation/gelu
# @kbx expect runtime_error
# @kbx because ILLEGAL_ADDRESS|illegal|CUDA error
# An illegal address: the stores go 2^40 elements (4 TiB) past y, far outside any allocation.
# The CUDA context is lost; kbx must say so and the next run must get a fresh worker.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    far = offsets.to(tl.int64) + (1 << 40)
    tl.store(y_ptr + far, y, mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _gelu_kernel[(max(1, triton.cdiv(n, 1024)),)](x, y, max(n, 1), BLOCK_SIZE=1024)
    return y
