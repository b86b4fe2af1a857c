# Cross-check of Fusion/fused_silu_layer_norm_conv2d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the function's `weight` argument is never read: pass None as the test does
    bias = a["conv_bias"] if a["has_bias"] else None
    return {"y": fn(a["x"], None, a["conv_weight"], conv_bias=bias, conv_stride=a["stride"],
                    conv_padding=a["padding"], conv_dilation=a["dilation"], conv_groups=a["groups"],
                    ln_eps=a["eps"])}
