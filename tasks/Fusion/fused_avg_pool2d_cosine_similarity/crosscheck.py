# Cross-check of Fusion/fused_avg_pool2d_cosine_similarity against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["x1"], a["x2"], kernel_size=a["kernel_size"], stride=a["stride"], padding=a["padding"],
                    eps=a["eps"])}
