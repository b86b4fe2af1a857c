# Cross-check of MatrixMultiply/matmul_bf16 against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # a [batch, m, k] @ b [batch, k, n] in bfloat16; the 2-D and 1-D forms of the test are
    # batch = 1 / m = 1 views of the same memory, and torch.matmul batches over the leading dim
    return {"c": fn(a["a"], a["b"])}
