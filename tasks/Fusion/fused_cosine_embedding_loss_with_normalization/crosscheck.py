# Cross-check of Fusion/fused_cosine_embedding_loss_with_normalization against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    reduction = ("none", "mean", "sum")[a["reduction"]]
    # 'mean' and 'sum' give a 0-d tensor; y is [m] with m = 1 then
    y = fn(a["input1"], a["input2"], a["target"], margin=a["margin"], reduction=reduction)
    return {"y": y.reshape(a["m"])}
