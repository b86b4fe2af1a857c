# Cross-check of LinearAlgebra/pseudoinverse_svd against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    bt, m, n = a["batch"], a["m"], a["n"]
    if m < n:
        # KernelBenchX's pseudoinverse_svd raises a shape error for wide inputs (its own product
        # of U, S and Vh does not line up when m < n): nothing to compare against.
        return None
    # PyTorch's own f32 SVD leaves ~1e-7 s_max of noise where a rank-deficient case has exact
    # zeros; those cases (rcond 1e-5) cut it off, as kbx does.
    return {"y": fn(a["a"].reshape(bt, m, n), full_matrices=bool(a["full_matrices"]), rcond=a["rcond"])}
