# @kbx task Activation/gelu
# @kbx expect pass
# Elementwise: F.gelu in one masked Triton kernel over the flat range, both forms (erf and tanh)
# chosen at compile time. The tanh form is written through exp so that +-inf saturate to +-1.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n_elements, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y, mask=mask)


def gelu(input: torch.Tensor, approximate: str = 'none') -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)
    _gelu_kernel[grid](x, y, n, TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return y
