# Cross-check of Fusion/fused_hardshrink_dropout against KernelBenchX's PyTorch function (tools/crosscheck.py).
def stochastic(a):
    """An active dropout: the function's mask comes from PyTorch's generator (kbx/rng.h draws the
    reference's), so its outputs are checked on the other cases only; it still runs (and is timed)."""
    # active dropout: PyTorch draws its mask from its own generator, kbx from kbx_uniform(seed, i);
    # the two cannot agree elementwise, so the case is skipped (p = 1 drops everything in both)
    return bool(a["training"]) and 0 < a["p"] < 1


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["input"], p=a["p"], training=bool(a["training"]), lambd=a["lambd"])}
