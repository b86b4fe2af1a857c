"""The candidate's returned outputs, checked and copied into the engine's out/inout buffers.

core/pyhost.h: shape by element count, dtype exactly. An inout buffer the candidate updated in
place (the returned tensor is the bound one, or a view of the same memory in the same layout)
needs no copy.
"""
from .dtypes import kbx_name, torch_name


class OutputError(Exception):
    """kind "output": a missing output, a wrong dtype or element count."""


def describe(t):
    return f"{torch_name(t.dtype)} {list(t.shape)}"


def check_one(torch, name, value, bound):
    """Raise OutputError unless `value` can fill the bound tensor."""
    want = f"{kbx_name(bound.dtype)} {list(bound.shape)}"
    if value is None:
        raise OutputError(f"output '{name}': the function returned None; the task's output is {want}")
    if not isinstance(value, torch.Tensor):
        raise OutputError(f"output '{name}': the function returned {type(value).__name__}, not a tensor; "
                          f"the task's output is {want}")
    if value.dtype != bound.dtype or value.numel() != bound.numel():
        raise OutputError(f"output '{name}': the function returned {describe(value)}; the task's output is {want}")
    if value.numel() and value.device.type != "cuda":
        raise OutputError(f"output '{name}': the function returned a tensor on {value.device}, not on the GPU")


def same_memory(value, bound):
    """The value is the bound buffer itself, element for element (bound buffers are contiguous)."""
    return value.data_ptr() == bound.data_ptr() and value.is_contiguous()


def copy_outputs(torch, result, bound_outputs):
    """result: {name: tensor} from the task's call; bound_outputs: {name: (dir, tensor)}.
    Checks every output first, then copies; returns log lines."""
    if not isinstance(result, dict):
        raise OutputError(f"the task's call returned {type(result).__name__}, not a dict of outputs")
    log = []
    plan = []
    for name, (direction, bound) in bound_outputs.items():
        if name not in result:
            if bound.numel() == 0:  # nothing to write (lu's p without pivoting is [batch, 0, 0])
                continue
            if direction == "inout":
                log.append(f"inout '{name}': not returned, its buffer is judged as the candidate left it")
                continue
            raise OutputError(f"output '{name}': the function did not return it")
        value = result[name]
        check_one(torch, name, value, bound)
        plan.append((name, value, bound))
    for name, value, bound in plan:
        if bound.numel() == 0:
            continue
        if same_memory(value, bound):
            log.append(f"output '{name}': written in place")
            continue
        bound.reshape(-1).copy_(value.reshape(-1))
    return log
