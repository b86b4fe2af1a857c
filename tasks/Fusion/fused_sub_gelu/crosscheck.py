# Cross-check of Fusion/fused_sub_gelu against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    alpha = a["alpha"]
    alpha = int(alpha) if float(alpha).is_integer() else alpha  # the test passes 1 and 0.5
    return {"y": fn(a["input"], a["other"], alpha=alpha, approximate=("none", "tanh")[a["approximate"]])}
