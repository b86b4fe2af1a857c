# Cross-check of Math/mul_fp16 against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # input [p, q] and other [r, s] broadcast to out [max(p, r), max(q, s)] as in torch.mul
    return {"out": fn(a["input"], a["other"])}
