# Cross-check of Index/permute_copy against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # x is the rank-4 form (leading 1s) and p0..p3 the rank-4 permutation: the same data as the
    # test's lower-rank call
    return {"y": fn(a["x"], [a["p0"], a["p1"], a["p2"], a["p3"]])}
