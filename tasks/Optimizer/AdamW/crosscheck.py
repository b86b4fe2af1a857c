# Cross-check of Optimizer/AdamW against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # adamw_step takes the step number t itself; the kbx buffer holds the steps taken so far, so
    # each of the `calls` steps advances it first (as torch.optim.AdamW does) and passes t.
    param, exp_avg, exp_avg_sq = a["param"].clone(), a["exp_avg"].clone(), a["exp_avg_sq"].clone()
    step = int(a["step"].item())
    for _ in range(int(a.get("calls", 1))):
        step += 1
        fn(param, a["grad"], exp_avg, exp_avg_sq, step, lr=a["lr"], beta1=a["beta1"], beta2=a["beta2"],
           eps=a["eps"], weight_decay=a["weight_decay"])
    return {"param": param, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq,
            "step": torch.tensor(step, dtype=a["step"].dtype, device=param.device)}
