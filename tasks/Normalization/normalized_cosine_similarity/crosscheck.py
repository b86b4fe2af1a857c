# Cross-check of Normalization/normalized_cosine_similarity against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the kbx view [outer, d, inner] reduced over dim 1 is the test's dim (dim = 1 of [B, D] is
    # [B, D, 1]; dim = 0 of [1, 3] is [1, 1, 3]); p_norm = +-1e39 spells +-inf
    shape = (a["outer"], a["d"], a["inner"])
    p = float(a["p_norm"])
    if abs(p) > 3.4028234663852886e38:
        p = float("inf") if p > 0 else float("-inf")
    y = fn(a["x1"].reshape(shape), a["x2"].reshape(shape), dim=1, eps_similarity=float(a["eps_similarity"]),
           p_norm=p, eps_norm=float(a["eps_norm"]))
    return {"y": y}
