# Cross-check of LinearAlgebra/lu against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    bt, m, n = a["batch"], a["m"], a["n"]
    P, L, U = fn(a["a"].reshape(bt, m, n), pivot=bool(a["pivot"]))
    out = {"l": L, "u": U}
    if a["pivot"]:  # without pivoting PyTorch returns an empty P, as kbx's p is then
        out["p"] = P
    return out
