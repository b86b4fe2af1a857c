# Cross-check of Normalization/normalize_pairwise_distance against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x1, x2 [b, m, d] with dim_norm = 1 (over m); the test's 2-D corner cases are b = 1 views of
    # its [m, d] inputs with dim_norm = 0. +-1e39 spells +-inf for the norm orders.
    def order(p):
        p = float(p)
        if abs(p) > 3.4028234663852886e38:
            return float("inf") if p > 0 else float("-inf")
        return p

    y = fn(a["x1"], a["x2"], p_distance=order(a["p_distance"]), eps_distance=float(a["eps_distance"]),
           keepdim=False, p_norm=order(a["p_norm"]), dim_norm=1, eps_norm=float(a["eps_norm"]))
    return {"y": y}
