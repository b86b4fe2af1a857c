# Cross-check of Fusion/fused_hardsigmoid_batch_norm against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    if a["eps"] == 0:
        # case special_eval: eps = 0 on purpose (eval mode, running_var = 1 keeps 1 / sqrt(var + eps)
        # finite); PyTorch's CUDA batch_norm refuses eps = 0: nothing to compare
        return None
    rm, rv = a["running_mean"].clone(), a["running_var"].clone()
    y = None
    for _ in range(int(a.get("calls", 1))):  # training_two_steps runs the function twice
        y = fn(a["x"], rm, rv, a["weight"], a["bias"], training=bool(a["training"]), momentum=a["momentum"],
               eps=a["eps"])
    return {"y": y, "running_mean": rm, "running_var": rv}
