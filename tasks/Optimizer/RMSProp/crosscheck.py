# Cross-check of Optimizer/RMSProp against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    param, square_avg = a["param"].clone(), a["square_avg"].clone()
    for _ in range(int(a.get("calls", 1))):
        fn(param, a["grad"], square_avg, lr=a["lr"], alpha=a["alpha"], eps=a["eps"],
           weight_decay=a["weight_decay"])
    return {"param": param, "square_avg": square_avg}
