# @kbx task Math/add
# @kbx expect pass
# An autotuned kernel: torch.add(input, other, alpha=alpha) with @triton.autotune choosing the
# block size and warps per size; other is a tensor or (m = 1) a Python number. Every config
# masks its tail, so whichever one kbx runs gives the same values.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 256}, num_warps=2),
        triton.Config({'BLOCK_SIZE': 1024}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 4096}, num_warps=8),
    ],
    key=['n_elements'],
)
@triton.jit
def _add_kernel(x_ptr, o_ptr, o_value, y_ptr, n_elements, alpha,
                OTHER_IS_TENSOR: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if OTHER_IS_TENSOR:
        o = tl.load(o_ptr + offsets, mask=mask, other=0.0)
    else:
        o = o_value
    tl.store(y_ptr + offsets, x + alpha * o, mask=mask)


def add(input, other, alpha=1, out=None):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    tensor = isinstance(other, torch.Tensor)
    o = other.contiguous() if tensor else x
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)
    _add_kernel[grid](x, o, 0.0 if tensor else float(other), y, n, float(alpha), OTHER_IS_TENSOR=tensor)
    return y
