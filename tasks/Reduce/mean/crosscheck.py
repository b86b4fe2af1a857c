# Cross-check of Reduce/mean against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x is the 4-D view [a, b, c, d]; dims (0, 2) are the reduced ones, y is [b, d]
    return {"y": fn(a["x"], dim=(0, 2)).reshape(a["b"], a["d"])}
