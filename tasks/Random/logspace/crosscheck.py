# Cross-check of Random/logspace against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # no tensor inputs: the function creates the f32 tensor on the GPU from the scalars
    return {"y": fn(float(a["start"]), float(a["end"]), int(a["n"]), base=float(a["base"]),
                    dtype=torch.float32, device="cuda")}
