# Cross-check of Normalization/spectral_norm_eig against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # A is [bt, n, n]; the test's single (n, n) matrices are bt = 1 (same value, one more dim)
    return {"y": fn(a["A"])}
