# Cross-check of Activation/combined_activation against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # rows = 1 is the [dout] vector form of the perf workload: pass it as a 1-D tensor (broadcast)
    w2 = a["weight2"].reshape(a["dout"]) if a["w2_rows"] == 1 else a["weight2"]
    b = a["bias"].reshape(a["dout"]) if a["bias_rows"] == 1 else a["bias"]
    return {"y": fn(a["input"], a["weight1"], w2, b)}
