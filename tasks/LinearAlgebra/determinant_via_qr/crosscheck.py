# Cross-check of LinearAlgebra/determinant_via_qr against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    n = a["n"]
    return {"d": fn(a["a"].reshape(n, n), mode=("reduced", "complete")[a["mode"]])}
