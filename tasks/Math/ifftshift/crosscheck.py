# Cross-check of Math/ifftshift against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the [a, b, c] view with its shift flags: dims = the selected ones (dim = None is every dim)
    x = a["x"].reshape(a["a"], a["b"], a["c"])
    dims = tuple(d for d, s in enumerate((a["sa"], a["sb"], a["sc"])) if s)
    return {"y": fn(x, dim=dims)}
