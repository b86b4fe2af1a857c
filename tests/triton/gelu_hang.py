# @kbx task Activation/gelu
# @kbx expect timeout
# @kbx because ran past|time limit|timed out
# @kbx args --launch-timeout 5
# A hang: every program spins until a flag that nothing ever sets becomes nonzero (an atomic
# read each turn, so the loop cannot be optimised away). The worker must be killed after the
# limit and the next run get a fresh one.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_spin_kernel(x_ptr, y_ptr, flag_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    while tl.atomic_add(flag_ptr, 0) == 0:
        x = x + 0.0
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y, mask=mask)


def gelu(input, approximate='none'):
    x = input.contiguous()
    y = torch.empty_like(x)
    flag = torch.zeros(1, dtype=torch.int32, device=x.device)
    n = x.numel()
    _gelu_spin_kernel[(max(1, triton.cdiv(n, 1024)),)](x, y, flag, n, BLOCK_SIZE=1024)
    return y
