# Cross-check of MatrixMultiply/tensordot_rsqrt against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # The kbx views a [m, u, v] and b [p, v, u, q] contract a's dims (1, 2) with b's dims (2, 1);
    # for the test's own calls this is the same sum in the same memory (dims = 1 is u = 1,
    # ([2], [1]) on [2, 2, 2] is m = 4, p = 2, ([2, 1], [0, 1]) is p = 1). The result is [m, p, q].
    return {"y": fn(a["a"], a["b"], dims=([1, 2], [2, 1]))}
