# Cross-check of MatrixMultiply/matrix_vector_dot against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    y = a["y"].clone()
    result = fn(a["A"], a["x"], y, a["alpha"], a["beta"])  # updates y in place
    return {"y": y, "result": result}
