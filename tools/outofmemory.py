"""What a run that ran out of GPU memory says: kbx's own allocation (cuMemAlloc ...
CUDA_ERROR_OUT_OF_MEMORY), PyTorch's ("CUDA out of memory"), and cuDNN finding no algorithm whose
workspace fits ("unable to find an engine"). Shared by tools/crosscheck.py and
bench/perf_check.py, which must not import torch, so this module imports nothing."""

OUT_OF_MEMORY = ("OUT_OF_MEMORY", "out of memory", "unable to find an engine")


def out_of_memory(message):
    """True when MESSAGE (a verdict's message or a tool's error line) says memory ran out."""
    return any(m in (message or "") for m in OUT_OF_MEMORY)
