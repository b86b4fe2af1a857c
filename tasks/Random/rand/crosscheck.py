# Cross-check of Random/rand against KernelBenchX's PyTorch function (tools/crosscheck.py).
# Stochastic: torch.rand draws from PyTorch's own Philox stream (its offsets and layout), which no kbx
# kernel reproduces and the task does not ask for; the outputs cannot be compared elementwise. The
# task is checked by the distribution verifier instead (range, mean, variance, KS test, seed
# behaviour), see [verifier] in task.ini.
# A Python candidate (a function without a seed) is judged by the same verifier, on its law alone.
def stochastic(a):
    """Every case: the function's draws come from PyTorch's generator."""
    return True


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["n"], device="cuda")}
