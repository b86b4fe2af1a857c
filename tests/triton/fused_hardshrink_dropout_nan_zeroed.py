# @kbx task Fusion/fused_hardshrink_dropout
# @kbx expect wrong
# @kbx because case special_eval|finite in the candidate where the reference is NaN
# @kbx args --no-perf
# fused_hardshrink_dropout_pass.py as first written: hardshrink as `x > lambd or x < -lambd ?
# x : 0`, which is the same function on numbers but turns a NaN into 0 (both comparisons are
# false), where PyTorch's `-lambd <= x <= lambd ? 0 : x` keeps it NaN. The task's special-value
# cases (input = special, training off) must see it; announced pass by its author, kbx judged it
# wrong on an H200.
import torch
import triton
import triton.language as tl

_calls = [0]


@triton.jit
def _kernel(x_ptr, y_ptr, n, p, scale, lambd, seed, TRAINING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if TRAINING:
        keep = tl.rand(seed, offs) >= p
        x = tl.where(keep, x * scale, 0.0)
    y = tl.where((x > lambd) | (x < -lambd), x, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    active = bool(training) and p > 0
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    _calls[0] += 1
    _kernel[(triton.cdiv(n, 1024),)](x, y, n, float(p), scale, float(lambd), 1234 + _calls[0],
                                     TRAINING=active, BLOCK=1024)
    return y.view_as(input)
