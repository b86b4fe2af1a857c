# Cross-check of Math/pow against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    if a["m"] == 1:
        # the Python-number form (the test's [2.0] ** 3.0 included): the f32 value as a Python float
        return {"out": fn(a["input"], float(a["exponent"][0].item()))}
    return {"out": fn(a["input"], a["exponent"])}
