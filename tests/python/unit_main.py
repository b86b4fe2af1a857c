"""kbx_worker.py's wiring, with a pure-Python stand-in for libkbxpy.so: kbx_py_main receives the
callbacks struct and calls load/bind/call through its C function pointers, as the engine does."""
import ctypes
import json
import os
import subprocess
import sys
import unittest

import fakes

sys.path.insert(0, os.path.join(fakes.HERE, "..", "..", "python"))
import kbx_worker  # noqa: E402
from kbxpy import cabi  # noqa: E402


class StandInLibrary:
    """What kbx_py_main would do with a syntax-error candidate and a candidate without torch."""

    def __init__(self, requests):
        self.requests = requests
        self.answers = []

    def kbx_alloc_check(self, buf, n):
        return 0

    def kbx_py_main(self, cb):
        self.abi = cb.abi
        buf = ctypes.create_string_buffer(65536)
        for req in self.requests:
            rc = cb.load(json.dumps(req).encode(), ctypes.addressof(buf), len(buf))
            self.answers.append((rc, cabi.decode(buf)))
        h = cb.bind(b'{"args": []}', ctypes.addressof(buf), len(buf))
        self.answers.append((h, cabi.decode(buf)))
        return 3


class Serve(unittest.TestCase):
    def test_callbacks_reach_the_worker(self):
        lib = StandInLibrary([{"source": "def f(:\n", "source_name": "c.py", "has_gpu": True}])
        status = kbx_worker.serve(lib, None)
        self.assertEqual((status, lib.abi), (3, cabi.KBX_PY_ABI))
        (rc, ans), (h, bans) = lib.answers
        self.assertEqual((rc, ans["verdict"], ans["line"]), (1, "compile_error", 1))
        self.assertEqual(h, -1)                        # bind before a successful load
        self.assertIn("message", bans)

    def test_without_kbx_pylib_exits_2(self):
        env = {k: v for k, v in os.environ.items() if k != "KBX_PYLIB"}
        script = os.path.join(fakes.HERE, "..", "..", "python", "kbx_worker.py")
        p = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("KBX_PYLIB", p.stderr)
        self.assertEqual(p.stdout, "")                 # stdout is the event stream: nothing from us

    def test_unloadable_library_exits_2(self):
        script = os.path.join(fakes.HERE, "..", "..", "python", "kbx_worker.py")
        env = dict(os.environ, KBX_PYLIB="/nonexistent/libkbxpy.so")
        p = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot load", p.stderr)


if __name__ == "__main__":
    unittest.main()
