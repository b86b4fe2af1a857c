# Cross-check of Fusion/fused_tile_exp against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # dims = (reps,) on the flat input: the same values as any dims whose product is reps
    y = fn(a["x"], (a["reps"],))
    return {"y": y.reshape(a["reps"], a["n"])}
