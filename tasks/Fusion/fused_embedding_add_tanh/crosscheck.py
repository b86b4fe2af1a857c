# Cross-check of Fusion/fused_embedding_add_tanh against KernelBenchX's PyTorch function (tools/crosscheck.py).
def call(fn, a, torch):
    """a: every in/inout buffer as a torch tensor on the GPU (its initial value), every binding
    (scalars and size variables) as a Python int/float; returns {out_or_inout_arg: tensor}."""
    if a["b"] * a["l"] == 0:
        # case empty: no indices, with max_norm. kbx defines it (an empty y, weight untouched), but
        # PyTorch's CUDA F.embedding refuses it (the max_norm renormalisation of zero indices fails):
        # nothing to compare
        return None
    # a negative max_norm stands for None; with max_norm, F.embedding renormalises rows of weight in
    # place, so the mutated weight is compared too
    max_norm = a["max_norm"] if a["max_norm"] >= 0 else None
    other = a["other"].reshape(a["ob"], a["ol"], a["od"])
    y = fn(a["indices"], a["weight"], other, max_norm=max_norm, norm_type=a["norm_type"])
    return {"y": y, "weight": a["weight"]}
