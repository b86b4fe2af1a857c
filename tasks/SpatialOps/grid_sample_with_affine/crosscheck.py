# Cross-check of SpatialOps/grid_sample_with_affine against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    if a["n"] == 0:
        # case empty_batch: kbx defines it (an empty y), but F.affine_grid refuses a size with a zero
        # dimension ("Expected non-zero, positive output size"): nothing to compare
        return None
    mode = ("bilinear", "nearest", "bicubic")[a["mode"]]
    padding_mode = ("zeros", "border", "reflection")[a["padding_mode"]]
    size = torch.Size((a["n"], a["c"], a["oh"], a["ow"]))
    return {"y": fn(a["input"], a["theta"], size, mode=mode, padding_mode=padding_mode,
                    align_corners=bool(a["align_corners"]))}
