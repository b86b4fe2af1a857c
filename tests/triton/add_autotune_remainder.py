# @kbx task Math/add
# @kbx expect wrong
# @kbx because case [a-z0-9_:=]+: (output 'out'|left [0-9]+ of [0-9]+ elements of 'out')
# An autotune config that is wrong for some sizes: the third config processes two blocks per
# program, and its grid (n // (2 * BLOCK_SIZE), rounded down) drops the remainder. The other
# configs are right, and the timing may well pick one of them: kbx must run every config the
# autotuner may choose and call the candidate wrong (any n that is not a multiple of 2048).
import torch
import triton
import triton.language as tl


def _grid(n):
    def grid(meta):
        per_program = meta['BLOCK_SIZE'] * meta['BLOCKS']
        if meta['ROUND_DOWN']:
            return (n // per_program,)
        return (triton.cdiv(n, per_program),)
    return grid


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 256, 'BLOCKS': 1, 'ROUND_DOWN': False}, num_warps=2),
        triton.Config({'BLOCK_SIZE': 1024, 'BLOCKS': 1, 'ROUND_DOWN': False}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 1024, 'BLOCKS': 2, 'ROUND_DOWN': True}, num_warps=4),
    ],
    key=['n_elements'],
)
@triton.jit
def _add_kernel(x_ptr, o_ptr, o_value, y_ptr, n_elements, alpha, OTHER_IS_TENSOR: tl.constexpr,
                BLOCK_SIZE: tl.constexpr, BLOCKS: tl.constexpr, ROUND_DOWN: tl.constexpr):
    for b in range(BLOCKS):
        offsets = (tl.program_id(0) * BLOCKS + b) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
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
    _add_kernel[_grid(n)](x, o, 0.0 if tensor else float(other), y, n, float(alpha), OTHER_IS_TENSOR=tensor)
    return y
