# @kbx task Fusion/fused_hardshrink_dropout
# @kbx expect pass
# @kbx args --rows 2
# Dropout with Triton's own generator (tl.rand), then hardshrink, in one kernel. Its mask cannot
# be kbx's, so the cases with an active dropout are counted apart (the task's stochastic(a)); the
# others (training off, p = 0 or 1) are compared. At the perf rows (p = 0.5, training) the kernel
# must really run in every timed call: no impossible timing, a real speedup or slowdown.
# PyTorch's semantics at special values: a dropped element is x * 0 (NaN for a NaN or inf), and
# hardshrink keeps what is not inside [-lambd, lambd], so a NaN stays NaN. (Its first version,
# written `|x| > lambd ? x : 0`, turned NaN into 0: kbx judged it wrong at case special_eval on an
# H200, rightly; that version is fused_hardshrink_dropout_nan_zeroed.py.)
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
        x = x * tl.where(keep, scale, 0.0)
    y = tl.where((x >= -lambd) & (x <= lambd), 0.0, x)
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
