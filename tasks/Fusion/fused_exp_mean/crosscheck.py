# Cross-check of Fusion/fused_exp_mean against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # input as its 3-D view [b, c, d] reduced over dim 1
    return {"y": fn(a["input"].reshape(a["b"], a["c"], a["d"]), dim=1)}
