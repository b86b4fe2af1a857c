# @kbx task Activation/gelu
# @kbx expect wrong
# @kbx because second run on the same inputs: the candidate launched no Triton kernel|replayed or cached
# A timing cheat only Python allows: the result is remembered in a dict of the module, keyed by
# the input's address and size, and a call on the same buffer returns it without launching
# anything (in a timed loop every call after the first would cost a dictionary lookup). kbx cannot
# poison host memory, but its second run of each case on the same inputs must launch a kernel
# like the first, and its check after timing gives the same buffer new values.
import torch
import triton
import triton.language as tl

_memo = {}


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
    tl.store(y_ptr + offsets, y, mask=mask)


def gelu(input: torch.Tensor, approximate: str = 'none') -> torch.Tensor:
    key = (input.data_ptr(), input.numel(), approximate)
    if key in _memo:
        return _memo[key]
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        _gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    _memo[key] = y
    return y
