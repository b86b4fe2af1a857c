# Cross-check of MatrixMultiply/matmul against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # a [batch, m, k] @ b [batch, k, n]: torch.matmul batches over the leading dim; the test's
    # 2-D, 1-D @ 2-D and 2-D @ 1-D calls are batch = 1, m = 1, n = 1 views of the same memory
    return {"c": fn(a["a"], a["b"])}
