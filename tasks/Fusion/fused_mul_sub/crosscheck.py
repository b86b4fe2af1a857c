# Cross-check of Fusion/fused_mul_sub against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # [mr, c] / [sr, c] operands broadcast against [r, c]; numbers are passed as Python floats
    other_mul = a["mul_value"] if a["mul_mode"] else a["other_mul"]
    other_sub = a["sub_value"] if a["sub_mode"] else a["other_sub"]
    return {"y": fn(a["input"], other_mul, other_sub, alpha=a["alpha"])}
