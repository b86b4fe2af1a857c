# Cross-check of Loss/mse_loss against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    reduction = ("none", "mean", "sum")[a["reduction"]]
    # 'mean' and 'sum' give a 0-d tensor; y is [m] with m = 1 then
    return {"y": fn(a["input"], a["target"], reduction=reduction).reshape(a["m"])}
