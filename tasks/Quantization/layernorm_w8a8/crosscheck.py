# Cross-check of Quantization/layernorm_w8a8 against KernelBenchX's PyTorch function (tools/crosscheck.py).
#
# Not cross-checked. KernelBenchX's function is the plain f32 F.layer_norm, and the tool would hold
# this task's reference to the task's metric thresholds against it; but the per-row int8 output
# step is itself farther than rmse 0.1 from the unquantized layer norm where the affine output is
# large (numpy model of the reference: 0.24 to 0.33 on corner_extreme_affine, 0.22 to 0.26 on
# large_affine). The thresholds are met only by giving up the quantization, so the reference is
# checked against a numpy model of the contract instead (see task.ini [tolerance]).
# A Python candidate is called as the test calls the function (weight = 1 and bias = 0 stand for
# None) and judged like a CUDA one.
compared = False


def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    return {"y": fn(a["input"], (a["d"],), a["weight"], a["bias"], eps=a["eps"])}
