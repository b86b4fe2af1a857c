# Cross-check of Fusion/fused_hstack_div against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    x1, x2 = a["a"], a["b"]
    if a["r"] == 1:  # the 1-D tensors of the test and the perf workload
        x1, x2 = x1.reshape(-1), x2.reshape(-1)
    divisor = a["divisor"] if a["dmode"] == 0 else a["dvec"]
    rounding = (None, "trunc", "floor")[a["rounding"]]
    return {"y": fn([x1, x2], divisor, rounding_mode=rounding)}
