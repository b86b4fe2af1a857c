# Cross-check of Math/div against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # [op, oq] broadcasts against [p, q] exactly as the test's 0-d, row and same-shape divisors do
    return {"out": fn(a["input"], a["other"])}
