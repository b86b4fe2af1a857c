# Cross-check of LinearAlgebra/ldl_factor against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    bt, n = a["batch"], a["n"]
    if n > 0 and not bool(torch.any(a["a"] != 0)):
        # case zeros: kbx defines the factorisation of the all-zero matrix (LD = 0: each zero column
        # is skipped, as LAPACK's sytf2 does), but PyTorch's ldl_factor stops on it with an internal
        # assert: nothing to compare
        return None
    # sytrf reads the lower triangle only, as the kbx task does (some inputs are not symmetric)
    LD, pivots = fn(a["a"].reshape(bt, n, n))
    return {"ld": LD.contiguous(), "pivots": pivots}
