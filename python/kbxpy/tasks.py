"""How a task calls the candidate: its crosscheck.py `call(fn, a, torch)`, loaded once per task.

`a` holds every in/inout buffer as a torch tensor under its arg name and every binding (sizes
and scalars) as a Python int or float, as tools/crosscheck.py builds it; call() calls the
function and returns {out_or_inout_arg: tensor}, or None, without calling it, when the function
cannot take the case at all (PyTorch refuses an empty input). A task without crosscheck.py gets
default_call: its in/inout buffers by position, in the order of the task's args, and the result
(one tensor, a tuple or a dict) mapped onto its out/inout buffers in order.

A crosscheck.py may also define stochastic(a): true when the function's outputs on that case come
from PyTorch's random generator (an active dropout, a random draw) and so can never equal kbx's
reference elementwise. The function is still called (a timed call must do the work), but the
case is not checked.
"""
import importlib.util
import os

_cache = {}


def load_call(task_dir):
    """The task's call function, or default_call; exceptions propagate (a broken task file)."""
    return load_task(task_dir)[0]


def load_task(task_dir):
    """(call, stochastic) of the task's crosscheck.py: stochastic is never_stochastic when the
    file defines none; (default_call, never_stochastic) without the file. Loaded once."""
    path = os.path.join(task_dir, "crosscheck.py")
    key = os.path.abspath(path)
    if key in _cache:
        return _cache[key]
    if not os.path.exists(path):
        _cache[key] = (default_call, never_stochastic)
        return _cache[key]
    spec = importlib.util.spec_from_file_location("kbx_crosscheck_" + os.path.basename(task_dir), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, "call", None)
    if not callable(fn):
        raise RuntimeError(f"'{path}' defines no call(fn, a, torch)")
    st = getattr(mod, "stochastic", None) or never_stochastic
    if not callable(st):
        raise RuntimeError(f"'{path}': stochastic must be a function of a")
    _cache[key] = (fn, st)
    return _cache[key]


def never_stochastic(a):
    return False


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
