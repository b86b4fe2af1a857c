# Cross-check of Fusion/fused_sum_std against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the input as its 3-D view [b, c, d], summed over dim 1 (dim = None is b = d = 1: one sum)
    x = a["input"].reshape(a["b"], a["c"], a["d"])
    y = fn(x, dim=1, correction=a["correction"])
    return {"y": y.to(x.device).reshape(())}  # m <= correction returns a CPU tensor(0.0)
