# Cross-check of Fusion/fused_elu_linear against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # bias = zeros stands for the test's bias=None (the same values)
    return {"y": fn(a["input"], a["weight"], a["bias"], alpha=a["alpha"])}
