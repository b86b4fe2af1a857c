# Cross-check of Index/index_fill_ against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x is the 3-D view [a, c, d]; dim 1 is the filled one. In place: x itself is returned mutated.
    x = a["x"]
    fn(1, x, a["index"], a["value"])
    return {"x": x}
