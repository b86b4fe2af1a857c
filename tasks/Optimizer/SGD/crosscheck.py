# Cross-check of Optimizer/SGD against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # sgd_step updates param and (when momentum > 0) the buffer in place; with momentum <= 0 it
    # never touches the buffer, which must then come back unchanged.
    param, buf = a["param"].clone(), a["momentum_buffer"].clone()
    for _ in range(int(a.get("calls", 1))):
        fn(param, a["grad"], buf, lr=a["lr"], momentum=a["momentum"], weight_decay=a["weight_decay"],
           dampening=a["dampening"], nesterov=bool(a["nesterov"]))
    return {"param": param, "momentum_buffer": buf}
