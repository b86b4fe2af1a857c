# Cross-check of Fusion/attention against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # every case binds the scale explicitly (d ** -0.5 where the test passes softmax_scale=None)
    return {"y": fn(a["q"], a["k"], a["v"], causal=bool(a["causal"]), softmax_scale=a["scale"])}
