# Cross-check of Fusion/fused_transformer_block against KernelBenchX's PyTorch function (tools/crosscheck.py).
def stochastic(a):
    """An active dropout: the function's mask comes from PyTorch's generator (kbx/rng.h draws the
    reference's), so its outputs are checked on the other cases only; it still runs (and is timed)."""
    # the function always runs dropout in training mode with PyTorch's generator, not kbx/rng.h:
    # with 0 < p the masks differ, so such cases are skipped (p = 0 and p = 1 are deterministic)
    return 0 < a["p"] < 1


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["input"], a["weight1"], a["weight2"], a["residual"], dropout_p=a["p"], eps=a["eps"])}
