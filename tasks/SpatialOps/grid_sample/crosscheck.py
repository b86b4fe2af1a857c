# Cross-check of SpatialOps/grid_sample against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    mode = ("bilinear", "nearest")[a["mode"]]
    padding_mode = ("zeros", "border", "reflection")[a["padding_mode"]]
    x, grid = a["input"], a["grid"]
    if a["gd"] == 2:  # a 4-D call: drop the d = od = 1 dims of the kbx views
        x = x.reshape(a["n"], a["c"], a["h"], a["w"])
        grid = grid.reshape(a["n"], a["oh"], a["ow"], 2)
    return {"y": fn(x, grid, mode=mode, padding_mode=padding_mode, align_corners=bool(a["align_corners"]))}
