# Cross-check of LinearAlgebra/solve_symmetric_ldl against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    n, k = a["n"], a["k"]
    return {"x": fn(a["a"].reshape(n, n), a["b"].reshape(n, k))}
