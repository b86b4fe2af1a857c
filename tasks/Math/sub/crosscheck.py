# Cross-check of Math/sub against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    other = a["other"]
    if a["m"] == 1 and a["n"] != 1:
        other = float(other[0].item())  # the Python-number form
    return {"out": fn(a["input"], other, alpha=a["alpha"])}
