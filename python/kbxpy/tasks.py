"""How a task calls the candidate: its crosscheck.py `call(fn, a, torch)`, loaded once per task.

`a` holds every in/inout buffer as a torch tensor under its arg name and every binding (sizes
and scalars) as a Python int or float, as tools/crosscheck.py builds it; call() returns
{out_or_inout_arg: tensor}, or None when the case cannot be checked through PyTorch's function.
A task without crosscheck.py gets default_call: its in/inout buffers by position, in the order
of the task's args, and the result (one tensor, a tuple or a dict) mapped onto its out/inout
buffers in order.
"""
import importlib.util
import os

_cache = {}


def load_call(task_dir):
    """The task's call function, or default_call; exceptions propagate (a broken task file)."""
    path = os.path.join(task_dir, "crosscheck.py")
    key = os.path.abspath(path)
    if key in _cache:
        return _cache[key]
    if not os.path.exists(path):
        _cache[key] = default_call
        return default_call
    spec = importlib.util.spec_from_file_location("kbx_crosscheck_" + os.path.basename(task_dir), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, "call", None)
    if fn is None:
        raise RuntimeError(f"'{path}' defines no call(fn, a, torch)")
    _cache[key] = fn
    return fn


class DefaultCall:
    """default_call needs the arg order; bind() sets it with arrange()."""

    def __init__(self):
        self.inputs = []
        self.outputs = []

    def arrange(self, args):
        self.inputs = [x["name"] for x in args if x["dir"] in ("in", "inout")]
        self.outputs = [x["name"] for x in args if x["dir"] in ("out", "inout")]
        return self

    def __call__(self, fn, a, torch):
        result = fn(*[a[n] for n in self.inputs])
        if isinstance(result, dict):
            return result
        if isinstance(result, (tuple, list)):
            return dict(zip(self.outputs, result))
        return {self.outputs[0]: result} if self.outputs else {}


def default_call(fn, a, torch):  # placeholder identity; bind() replaces it with a DefaultCall
    raise RuntimeError("default_call used without the task's args")


def build_a(args, tensors, bindings):
    """tools/crosscheck.py's `a`: bindings as ints/floats, every in/inout buffer as its tensor."""
    a = {}
    for k, v in (bindings or {}).items():
        a[k] = v if isinstance(v, (int, float)) else (float(v) if isinstance(v, str) and _isnum(v) else v)
    for x in args:
        if x["dir"] in ("in", "inout"):
            a[x["name"]] = tensors[x["name"]]
    return a


def _isnum(text):
    try:
        float(text)
        return True
    except ValueError:
        return False
