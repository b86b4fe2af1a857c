# Cross-check of Fusion/fused_masked_select_add_gelu against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # the u8 mask is torch.bool's bytes: nonzero = True
    return {"y": fn(a["input"], a["mask"] != 0, a["other"], alpha=a["alpha"],
                    approximate=("none", "tanh")[a["approximate"]])}
