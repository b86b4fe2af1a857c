# Cross-check of Math/erfc_sqrt against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    erfc_result, sqrt_result = fn(a["x"])
    return {"erfc_result": erfc_result, "sqrt_result": sqrt_result}
