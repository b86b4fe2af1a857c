# Cross-check of Loss/kl_div against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    reduction = ("none", "mean", "sum", "batchmean")[a["reduction"]]
    out = fn(a["input"], a["target"], reduction=reduction, log_target=bool(a["log_target"]))
    return {"y": out.reshape(a["m"])}
