# Cross-check of Loss/cross_entropy against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    reduction = ("none", "mean", "sum")[a["reduction"]]
    weight = a["weight"] if a["cw"] > 0 else None
    # input [n, c, s] and target [n, s] are valid (N, C, d1) / (N, d1) tensors; for s = 1 the 2-D form
    x, t = a["input"], a["target"]
    if a["s"] == 1:
        x, t = x.reshape(a["n"], a["c"]), t.reshape(a["n"])
    out = fn(x, t, weight=weight, ignore_index=a["ignore_index"], reduction=reduction)
    return {"y": out.reshape(a["m"])}
