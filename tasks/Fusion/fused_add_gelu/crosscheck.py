# Cross-check of Fusion/fused_add_gelu against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # test_case_4's Python-number other is the buffer filled with that number (the same values)
    return {"y": fn(a["input"], a["other"], alpha=a["alpha"], approximate=("none", "tanh")[a["approximate"]])}
