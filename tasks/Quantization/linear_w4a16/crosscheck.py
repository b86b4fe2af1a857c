# Cross-check of Quantization/linear_w4a16 against KernelBenchX's PyTorch function (tools/crosscheck.py).
#
# Not cross-checked. KernelBenchX's function is the plain f16 F.linear, and the tool would hold
# this task's reference to the task's metric thresholds against it; but 4-bit weights are far
# from it (numpy model of the reference: rmse 1.3 to 2.1 on the randn draws, 5.5 to 13 with
# outliers, l1_relative up to 0.37), beyond rmse 0.15 and l1_relative 0.1 for any int4 scheme.
# The reference is checked against a numpy model of the quantization contract instead (see
# task.ini [tolerance]).
# A Python candidate is called as the test calls the function and judged like a CUDA one.
compared = False


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["input"], a["weight"], a["bias"] if a["has_bias"] else None)}
