# Cross-check of LinearAlgebra/det against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    n = a["n"]
    # kbx's f32 determinant is compared with torch.linalg.det of the same f32 matrix
    return {"d": fn(a["a"].reshape(n, n))}
