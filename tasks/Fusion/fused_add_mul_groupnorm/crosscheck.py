# Cross-check of Fusion/fused_add_mul_groupnorm against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    if a["n"] * a["c"] // a["groups"] * a["h"] * a["w"] == 1:
        # case size_1: a group of one value (variance 0, y = bias) is defined in kbx, but F.group_norm
        # refuses it ("Expected more than 1 value per channel when training"): nothing to compare
        return None
    # weight = ones and bias = zeros stand for the test's None (the same result)
    return {"y": fn(a["input1"], a["input2"], a["weight"], a["bias"], a["groups"], eps=a["eps"])}
