# Cross-check of Fusion/fused_pairwise_distance_normalize against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    y = fn(a["x1"], a["x2"], p_norm=a["p_norm"], eps_norm=a["eps_norm"], eps_distance=a["eps_distance"],
           keepdim=bool(a["keepdim"]))
    # keepdim=True appends a size-1 dim; the values are the same [n, m]
    return {"y": y.reshape(a["n"], a["m"])}
