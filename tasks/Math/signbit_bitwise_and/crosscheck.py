# Cross-check of Math/signbit_bitwise_and against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # other is int8 here; the test's bool tensors convert to the same int8 0 / 1 inside the function
    sign, anded = fn(a["input"], a["other"])
    return {"sign": sign, "anded": anded}
