# Cross-check of Fusion/fused_gather_masked_fill against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the 3-D view [a, m, c] gathered along dim 1 is the function on that 3-D tensor
    return {"y": fn(a["input"], 1, a["index"], a["mask"].bool(), a["value"])}
