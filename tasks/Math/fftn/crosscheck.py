# Cross-check of Math/fftn against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x[b, r, c]: the transform runs over the last two dims with s = (s0, s1), as the test's 2-D calls
    norm = ("backward", "ortho", "forward")[a["norm"]]
    return {"y": fn(a["x"], s=(a["s0"], a["s1"]), dim=(-2, -1), norm=norm)}
