# Cross-check of LinearAlgebra/eig against KernelBenchX's PyTorch function (tools/crosscheck.py).
# torch.linalg.eig's outputs are unique only up to the order of the eigenvalues and a complex
# phase per eigenvector, so they are not compared element by element: tools/crosscheck.py judges
# them as kbx judges a candidate (the eig property of core/verify.c: residual, eigenvalues as a set
# against kbx's f64 reference, unit-length vectors, within the task's tol).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    n = a["n"]
    values, vectors = fn(a["a"].reshape(n, n))
    return {"eigenvalues": values, "eigenvectors": vectors}
