# Cross-check of Math/bitwise_and_binomial against KernelBenchX's PyTorch function (tools/crosscheck.py).
# Stochastic: the function returns a Binomial sample from PyTorch's generator; this task fixes the draw
# with kbx/rng.h instead, so no element can match PyTorch's sample (only the law is the same).
def stochastic(a):
    """Every case: the function's draws come from PyTorch's generator."""
    return True


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    p = {"logits": a["probs"]} if a["use_logits"] else {"probs": a["probs"]}
    return {"out": fn(a["input"], a["other"], a["total_count"], **p)}
