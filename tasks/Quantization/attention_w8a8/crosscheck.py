# Cross-check of Quantization/attention_w8a8 against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    # KernelBenchX's function is the exact f32 attention. Per-token int8 stays well inside the
    # task's metric thresholds against it (rmse <= 0.05 in a numpy model of the reference), so the
    # reference is held to them here. An empty output is skipped: the tool's cosine of two empty
    # vectors is 0, which would read as a failure.
    if a["b"] * a["s"] * a["d"] == 0:
        return None
    return {"out": fn(a["query"], a["key"], a["value"])}
