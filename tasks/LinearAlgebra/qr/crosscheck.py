# Cross-check of LinearAlgebra/qr against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    bt, m, n = a["batch"], a["m"], a["n"]
    Q, R = fn(a["a"].reshape(bt, m, n), mode=("reduced", "complete")[a["mode"]])
    # Only R is unique, up to the sign of each row: kbx's reference makes the diagonal
    # non-negative, so the same is done to PyTorch's R (Q's extra columns in complete mode are
    # not unique at all and are left to the property verifier).
    k = min(m, n)
    d = torch.diagonal(R[..., :k, :k], dim1=-2, dim2=-1)
    s = torch.where(d < 0, -1.0, 1.0).to(R.dtype)
    R = R.clone()
    R[..., :k, :] = R[..., :k, :] * s.unsqueeze(-1)
    return {"r": R}
