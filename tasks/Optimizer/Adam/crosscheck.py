# Cross-check of Optimizer/Adam against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # fn builds torch.optim.Adam; its state is seeded with the case's step and moments (PyTorch
    # keeps state["step"] as an f32 0-d tensor on the CPU), then opt.step() runs `calls` times.
    param = a["param"].clone()
    param.grad = a["grad"].clone()
    opt = fn([param], lr=a["lr"], betas=(a["beta1"], a["beta2"]), eps=a["eps"], weight_decay=a["weight_decay"])
    opt.state[param] = {
        "step": a["step"].detach().to("cpu", torch.float32).reshape(()).clone(),
        "exp_avg": a["exp_avg"].clone(),
        "exp_avg_sq": a["exp_avg_sq"].clone(),
    }
    for _ in range(int(a.get("calls", 1))):
        opt.step()
    state = opt.state[param]
    return {"param": param.detach(), "exp_avg": state["exp_avg"], "exp_avg_sq": state["exp_avg_sq"],
            "step": state["step"].reshape(()).to(param.device)}  # the step counter is kept on the CPU
