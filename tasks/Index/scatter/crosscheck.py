# Cross-check of Index/scatter against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the 3-D views [a, c, d] and [a, k, d]; dim 1 is the scattered one. Out of place.
    return {"y": fn(a["input"], 1, a["index"], a["src"])}
