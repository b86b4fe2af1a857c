# Cross-check of Fusion/fused_dropout_relu_batch_norm_conv2d against KernelBenchX's PyTorch function (tools/crosscheck.py).
def stochastic(a):
    """An active dropout: the function's mask comes from PyTorch's generator (kbx/rng.h draws the
    reference's), so its outputs are checked on the other cases only; it still runs (and is timed)."""
    # active dropout (training is always on): PyTorch draws its mask from its own generator,
    # kbx from kbx_uniform(seed, e); they cannot agree elementwise, so the case is skipped
    return 0 < a["p"] < 1


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the task defines the exact f32 convolution; cuDNN's TF32 (on by default) is ~1e-3 off it
    torch.backends.cudnn.allow_tf32 = False
    return {"y": fn(a["input"], a["weight"], a["bias"], stride=a["stride"], padding=a["padding"],
                    dilation=a["dilation"], groups=a["groups"], p=a["p"], training=True)}
