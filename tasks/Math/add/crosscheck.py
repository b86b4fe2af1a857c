# Cross-check of Math/add against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # m == 1 is the Python-number form: pass other[0] as a float, as the test's torch.add(x, 2.0)
    other = a["other"][0].item() if a["m"] == 1 else a["other"]
    return {"out": fn(a["input"], other, alpha=a["alpha"])}
