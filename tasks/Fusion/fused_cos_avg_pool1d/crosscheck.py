# Cross-check of Fusion/fused_cos_avg_pool1d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["x"], a["kernel_size"], stride=a["stride"], padding=a["padding"],
                    ceil_mode=bool(a["ceil_mode"]), count_include_pad=bool(a["count_include_pad"]))}
