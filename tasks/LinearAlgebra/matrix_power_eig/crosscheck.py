# Cross-check of LinearAlgebra/matrix_power_eig against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    n = a["n"]
    return {"y": fn(a["a"].reshape(n, n), a["k"])}
