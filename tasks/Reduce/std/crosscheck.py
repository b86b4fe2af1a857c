# Cross-check of Reduce/std against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x is the 3-D view [a, c, d]; dim 1 is the reduced one (dim = None of the test is a = d = 1)
    return {"y": fn(a["x"], dim=1, correction=a["correction"]).reshape(a["a"], a["d"])}
