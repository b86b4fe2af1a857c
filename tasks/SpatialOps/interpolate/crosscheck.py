# Cross-check of SpatialOps/interpolate against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    mode = ("nearest", "bilinear", "bicubic")[a["mode"]]
    # PyTorch rejects align_corners for 'nearest'; the other modes take it as a bool
    align = None if a["mode"] == 0 else bool(a["align_corners"])
    if a["scale_h"] > 0:  # the case gave scale_factor; kbx's oh, ow are floor(h * scale_h), ...
        return {"y": fn(a["x"], scale_factor=(a["scale_h"], a["scale_w"]), mode=mode, align_corners=align)}
    return {"y": fn(a["x"], size=(a["oh"], a["ow"]), mode=mode, align_corners=align)}
