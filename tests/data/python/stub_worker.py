"""A stand-in for python/kbx_worker.py (no torch needed): the real libkbxpy.so with callbacks
that answer load() with not_run naming this process's pid, or exit the process when the source
asks for it ("# stub: die"), or answer and then retire as a worker does after a lost CUDA context
("# stub: retire": exit status 3 once the run is done, without reading the request already
written to it). tests/cli/pyworker.sh uses it to see one worker serve many items and a dead or
retired one replaced."""
import ctypes
import json
import os
import sys
import time

lib = ctypes.CDLL(os.environ["KBX_PYLIB"])
LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)
BIND = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)
UNBIND = ctypes.CFUNCTYPE(None, ctypes.c_int)
CALL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)


class Callbacks(ctypes.Structure):
    _fields_ = [("abi", ctypes.c_int), ("load", LOAD), ("bind", BIND), ("unbind", UNBIND), ("call", CALL)]


def answer(out, n, obj):
    data = json.dumps(obj).encode()[: n - 1] + b"\0"
    ctypes.memmove(out, data, len(data))


retiring = []


def load(request, out, n):
    req = json.loads(request)
    if "# stub: die" in req["source"]:
        os._exit(3)
    if "# stub: retire" in req["source"]:
        # the engine's loop ends at its next read (stdin is gone) while the pipe stays open, so
        # the parent's next request is written but never read: the race of a real retirement
        retiring.append(os.dup(0))
        os.close(0)
    print("stub: something on stdout", flush=True)   # must not reach the event stream
    os.write(1, b"stub: raw bytes on descriptor 1\n")
    answer(out, n, {"verdict": "not_run", "message": "stub worker pid %d, sandbox %s" %
                    (os.getpid(), os.environ.get("KBX_SANDBOX", "?")),
                    "log": ["env HOME=%s SECRET=%s" % ("HOME" in os.environ, os.environ.get("KBX_TEST_SECRET"))]})
    return 1


cb = Callbacks(1, LOAD(load), BIND(lambda a, b, c: -1), UNBIND(lambda h: None), CALL(lambda h, m, o, n: 1))
rc = lib.kbx_py_main(ctypes.byref(cb))
if retiring:
    time.sleep(0.5)   # the parent has written the next request by now
    os._exit(3)
sys.exit(rc)
