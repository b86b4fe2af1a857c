# Cross-check of Fusion/fused_pairwise_distance_adaptive_avg_pool2d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    p = float(a["p"])
    if p > 3.4028234663852886e38:  # the case binds p = 3e39, which is inf as the kernel's f32
        p = float("inf")
    return {"y": fn(a["x1"], a["x2"], output_size=(a["oh"], a["ow"]), p=p, eps=a["eps"])}
