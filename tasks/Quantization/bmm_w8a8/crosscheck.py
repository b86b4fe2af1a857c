# Cross-check of Quantization/bmm_w8a8 against KernelBenchX's PyTorch function (tools/crosscheck.py).
#
# Not cross-checked. KernelBenchX's function is the exact f32 torch.bmm(input, mat2), and the
# tool would hold this task's reference to the task's metric thresholds against it; but honest
# per-row / per-column int8 quantization is itself farther than rmse 0.1 from the exact product
# on several cases (numpy model of the reference: 0.25 on the larger outlier draw, 0.12 on
# corner_asymmetric_scale, 0.104 on primes, 0.76 on long_k). The thresholds are met only by
# giving up quantization, so the reference is checked against a numpy model of the quantization
# contract instead (see task.ini [tolerance]). A Python candidate is called as the test calls the
# function and judged like a CUDA one.
compared = False


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["input"], a["mat2"])}
