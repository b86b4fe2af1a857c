# Cross-check of Optimizer/Lion against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    param, exp_avg = a["param"].clone(), a["exp_avg"].clone()
    for _ in range(int(a.get("calls", 1))):
        fn(param, a["grad"], exp_avg, lr=a["lr"], beta1=a["beta1"], beta2=a["beta2"],
           weight_decay=a["weight_decay"])
    return {"param": param, "exp_avg": exp_avg}
