# Cross-check of Fusion/fused_mv_sigmoid_sub against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    torch.backends.cuda.matmul.allow_tf32 = False  # an f32 mv
    other = a["other_value"] if a["omode"] else a["other"]
    return {"y": fn(a["input"], a["vec"], other, alpha=a["alpha"])}
