# Cross-check of Fusion/fused_relu_max_pool2d_conv2d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    bias = a["bias"] if a["has_bias"] else None
    return {"y": fn(a["input"], a["weight"], bias=bias, conv_stride=a["conv_stride"],
                    conv_padding=a["conv_padding"], conv_dilation=a["conv_dilation"],
                    conv_groups=a["conv_groups"], pool_kernel_size=a["pool_k"],
                    pool_stride=a["pool_stride"], pool_padding=a["pool_padding"])}
