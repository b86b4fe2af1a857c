# Cross-check of Convolution/conv2d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the task is an f32 convolution; PyTorch's cuDNN path uses TF32 unless told not to
    torch.backends.cudnn.allow_tf32 = False
    bias = a["bias"] if a["has_bias"] else None
    return {"y": fn(a["input"], a["weight"], bias, stride=a["stride"], padding=a["padding"],
                    dilation=a["dilation"], groups=a["groups"])}
