# Cross-check of Fusion/fused_layer_norm_relu_linear against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    torch.backends.cuda.matmul.allow_tf32 = False  # an f32 product
    bias = a["bias"] if a["has_bias"] else None
    return {"y": fn(a["input"], a["weight"], bias, normalized_shape=a["n"], eps=a["eps"])}
