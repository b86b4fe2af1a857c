# Cross-check of Fusion/fused_index_select_eq against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the 3-D view [a, m, c] selected along dim 1; other: a number, a tensor of the selection's shape
    # or one of shape [1, k, c] that broadcasts over dim 0
    other = a["other_value"] if a["omode"] == 0 else a["other"]
    return {"y": fn(a["input"], 1, a["index"], other)}
