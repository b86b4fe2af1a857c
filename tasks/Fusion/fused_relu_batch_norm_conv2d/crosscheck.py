# Cross-check of Fusion/fused_relu_batch_norm_conv2d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the task is an f32 convolution; PyTorch's cuDNN path uses TF32 unless told not to
    torch.backends.cudnn.allow_tf32 = False
    # training updates the running statistics in place: hand the function copies and return them
    running_mean, running_var = a["running_mean"].clone(), a["running_var"].clone()
    bias = a["bias"] if a["has_bias"] else None
    y = fn(a["input"], a["weight"], bias, stride=a["stride"], padding=a["padding"], dilation=a["dilation"],
           groups=a["groups"], running_mean=running_mean, running_var=running_var, bn_weight=a["bn_weight"],
           bn_bias=a["bn_bias"], training=bool(a["training"]), momentum=a["momentum"], eps=a["eps"])
    return {"y": y, "running_mean": running_mean, "running_var": running_var}
