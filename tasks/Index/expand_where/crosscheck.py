# Cross-check of Index/expand_where against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    b, w = a["b"], a["w"]
    # the test's shapes: input (1, w) expanded to (b, w), cond (b, 1) bool, other (b, w)
    out = fn(a["x"].reshape(1, w), (b, w), a["cond"].reshape(b, 1).bool(), a["other"])
    return {"y": out}
