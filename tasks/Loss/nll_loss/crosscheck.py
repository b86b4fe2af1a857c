# Cross-check of Loss/nll_loss against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    reduction = ("none", "mean", "sum")[a["reduction"]]
    weight = a["weight"] if a["cw"] > 0 else None
    out = fn(a["input"], a["target"], weight=weight, ignore_index=a["ignore_index"], reduction=reduction)
    return {"y": out.reshape(a["m"])}
