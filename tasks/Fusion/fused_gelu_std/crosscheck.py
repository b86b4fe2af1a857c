# Cross-check of Fusion/fused_gelu_std against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # input is the 3-D view [a, c, d] reduced over dim 1 (dim None, 0 and 1 of the test are such views)
    return {"y": fn(a["input"], dim=1, correction=a["correction"], approximate=("none", "tanh")[a["approximate"]])}
