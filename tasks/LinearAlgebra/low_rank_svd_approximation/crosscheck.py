# Cross-check of LinearAlgebra/low_rank_svd_approximation against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    bt, m, n = a["batch"], a["m"], a["n"]
    return {"y": fn(a["a"].reshape(bt, m, n), a["k"], full_matrices=bool(a["full_matrices"]))}
