# Cross-check of Fusion/fused_conv2d_add against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the task defines the exact f32 convolution; cuDNN's TF32 (on by default) is ~1e-3 off it
    torch.backends.cudnn.allow_tf32 = False
    # bias = zeros and other = zeros stand for the test's None (the same values); a scalar other is
    # its [1, 1, 1, 1] tensor, which broadcasts the same way
    return {"y": fn(a["input"], a["weight"], bias=a["bias"], other=a["other"], stride=a["stride"],
                    padding=a["padding"], dilation=a["dilation"], groups=a["groups"], alpha=a["alpha"])}
