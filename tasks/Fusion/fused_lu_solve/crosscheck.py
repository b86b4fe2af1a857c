# Cross-check of Fusion/fused_lu_solve against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    torch.backends.cuda.matmul.allow_tf32 = False  # L @ U in f32
    return {"x": fn(a["A"], a["b"])}
