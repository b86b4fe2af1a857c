# Cross-check of Normalization/batch_norm against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # f16 input with f32 running statistics and affine parameters (PyTorch's mixed-precision
    # path); training updates the running statistics in place.
    running_mean, running_var = a["running_mean"].clone(), a["running_var"].clone()
    y = fn(a["x"], running_mean, running_var, a["weight"], a["bias"], training=bool(a["training"]),
           momentum=a["momentum"], eps=a["eps"])
    return {"y": y, "running_mean": running_mean, "running_var": running_var}
