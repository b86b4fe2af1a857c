"""Every task's call, made of a function with exactly KernelBenchX's signature (the task's
[python] section), on the first case's bindings: it must call the function (a Python candidate
written to that signature can then be run), pass only arguments the signature takes, and return
the task's out/inout buffers. Tensors and torch are stand-ins (Loose) that accept any use, so this
checks the mapping, not the arithmetic; no torch or GPU needed."""
import configparser
import glob
import math
import os
import re
import unittest

import fakes
from kbxpy import tasks

REPO = os.path.normpath(os.path.join(fakes.HERE, "..", ".."))


class Loose:
    """Any attribute, call, index, arithmetic or comparison works; iterating yields `width`
    stand-ins (a call that unpacks a result into k names is retried with width k)."""

    width = 2

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Loose()

    def __call__(self, *args, **kwargs):
        return Loose()

    def __getitem__(self, key):
        return Loose()

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter([Loose() for _ in range(Loose.width)])

    def __len__(self):
        return Loose.width

    def __bool__(self):
        return True

    def __index__(self):
        return 2

    __int__ = __index__

    def __float__(self):
        return 2.0

    def _op(self, *other):
        return Loose()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _op
    __floordiv__ = __rfloordiv__ = __mod__ = __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _op
    __and__ = __or__ = __invert__ = __matmul__ = __rmatmul__ = _op

    def __lt__(self, other):
        return True

    __le__ = __gt__ = __ge__ = __lt__
    __eq__ = __ne__ = _op

    def __hash__(self):
        return id(self)


def read_task(ini):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), comment_prefixes=(";", "#"), strict=False,
                                   interpolation=None)
    cp.optionxform = str
    cp.read(ini)
    signature = " ".join(cp.get("python", "signature").split())
    dirs = {k: v.split()[0] for k, v in cp.items("args") if v.split()[0] in ("in", "out", "inout")}
    case = next(s for s in cp.sections() if s.startswith("case."))
    a, pending = {}, dict(cp.items(case))
    for _ in range(4):  # bindings written as expressions of others (m = n * s)
        for k, v in list(pending.items()):
            try:
                val = eval(v, {"__builtins__": {}}, dict(a))
            except Exception:
                continue
            if isinstance(val, (int, float)):
                a[k] = val
                del pending[k]
    for k, d in dirs.items():
        if d != "out":
            a[k] = Loose()
    return signature, dirs, a


def make_call(call, fn, a):
    """call(fn, a, torch), retried with wider unpacking where the call unpacks a result."""
    Loose.width = 2
    for _ in range(6):
        try:
            return call(fn, a, Loose())
        except ValueError as e:
            m = re.search(r"expected (\d+)", str(e))
            if not m:
                raise
            Loose.width = int(m.group(1))
    raise AssertionError("could not unpack")


class EveryCallTest(unittest.TestCase):
    def test_every_task_calls_kernelbenchx_signature(self):
        n = 0
        for ini in sorted(glob.glob(os.path.join(REPO, "tasks", "*", "*", "task.ini"))):
            d = os.path.dirname(ini)
            with self.subTest(task=os.path.relpath(d, os.path.join(REPO, "tasks"))):
                signature, dirs, a = read_task(ini)
                called = []
                ns = {"torch": Loose(), "math": math, "Loose": Loose, "called": called}
                exec(f"def entry{signature}:\n    called.append(1)\n    return Loose()", ns)
                call, stochastic = tasks.load_task(d)
                if call is tasks.default_call:
                    call = tasks.DefaultCall().arrange([{"name": k, "dir": v} for k, v in dirs.items()])
                result = make_call(call, ns["entry"], a)  # a TypeError: the signature cannot take it
                if result is not None:
                    self.assertTrue(called, "the call returned outputs without calling the function")
                    self.assertLessEqual(set(result), {k for k, v in dirs.items() if v != "in"})
                self.assertIn(bool(stochastic(a)), (True, False))
                n += 1
        self.assertEqual(n, len(glob.glob(os.path.join(REPO, "tasks", "*", "*", "task.ini"))))
        self.assertGreater(n, 180)

    def test_a_wrong_signature_is_caught(self):
        # the check itself: a function without `approximate` cannot take gelu's call
        ns = {"called": []}
        exec("def entry(input):\n    called.append(1)\n    return 1", ns)
        call, _ = tasks.load_task(os.path.join(REPO, "tasks", "Activation", "gelu"))
        with self.assertRaises(TypeError):
            make_call(call, ns["entry"], {"x": Loose(), "approximate": 0, "n": 4})


if __name__ == "__main__":
    unittest.main()
