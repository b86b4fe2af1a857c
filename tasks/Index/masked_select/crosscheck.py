# Cross-check of Index/masked_select against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x [a, b, c] with mask [b] broadcast as (1, b, 1); the result has exactly cnt elements
    x = a["x"].reshape(a["a"], a["b"], a["c"])
    mask = a["mask"].reshape(1, a["b"], 1).bool()
    return {"y": fn(x, mask)}
