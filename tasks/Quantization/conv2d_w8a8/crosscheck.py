# Cross-check of Quantization/conv2d_w8a8 against KernelBenchX's PyTorch function (tools/crosscheck.py).
#
# Not cross-checked. KernelBenchX's function is the exact f32 F.conv2d, and the tool would hold
# this task's reference to the task's metric thresholds against it; but honest per-tensor /
# per-output-channel int8 is itself farther than rmse 0.1 from the exact convolution on several
# cases (numpy model of the reference: 0.14 to 0.36 on the outlier draws, ~2 on channel_ranges).
# The thresholds are met only by giving up quantization, so the reference is checked against a
# numpy model of the quantization contract instead (see task.ini [tolerance]).
# A Python candidate is called as the test calls the function and judged like a CUDA one.
compared = False


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["input"], a["weight"], a["bias"] if a["has_bias"] else None, stride=a["stride"],
                    padding=a["padding"])}
