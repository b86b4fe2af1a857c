# Cross-check of Normalization/symmetric_matrix_vector_norm against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # p = +-1e39 is the task's spelling of +-inf (the f32 argument rounds it so)
    p = float(a["p"])
    if abs(p) > 3.4028234663852886e38:
        p = float("inf") if p > 0 else float("-inf")
    return {"y": fn(a["A"], a["x"], float(a["alpha"]), float(a["beta"]), p)}
