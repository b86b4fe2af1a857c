"""ctypes glue: libkbxpy.so, struct kbx_py_callbacks, and answers written into C buffers.

The struct mirrors core/pyhost.h exactly:
    struct kbx_py_callbacks { int abi; int (*load)(const char *, char *, size_t);
        int (*bind)(const char *, char *, size_t); void (*unbind)(int);
        int (*call)(int, int, char *, size_t); };
Each callback catches every exception and answers JSON (ctypes would print an exception and
return 0, which the engine would read as success). The CFUNCTYPE objects are kept on the
returned Callbacks object, which the caller keeps alive for the life of the process.
"""
import ctypes
import json

from .answer import fit
from .worker import internal_error

KBX_PY_ABI = 1

LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)
BIND = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)
UNBIND = ctypes.CFUNCTYPE(None, ctypes.c_int)
CALL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)


class KbxPyCallbacks(ctypes.Structure):
    _fields_ = [("abi", ctypes.c_int), ("load", LOAD), ("bind", BIND), ("unbind", UNBIND), ("call", CALL)]


def write_answer(out, outlen, answer):
    """answer (a dict) as JSON into the C buffer at address out, NUL-terminated, within outlen."""
    if not out or not outlen:
        return
    data = fit(answer, outlen)
    ctypes.memmove(out, data + b"\0", len(data) + 1)


def open_library(path):
    """libkbxpy.so loaded globally (torch's pluggable allocator dlopens the same file and gets the
    same copy, so the allocator state is shared with kbx_py_main)."""
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    lib.kbx_py_main.argtypes = [ctypes.POINTER(KbxPyCallbacks)]
    lib.kbx_py_main.restype = ctypes.c_int
    lib.kbx_alloc_check.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.kbx_alloc_check.restype = ctypes.c_int
    return lib


def alloc_checker(lib):
    """() -> (damaged blocks, one-line description) through kbx_alloc_check."""
    def check():
        buf = ctypes.create_string_buffer(1024)
        n = lib.kbx_alloc_check(buf, len(buf))
        return n, buf.value.decode("utf-8", "replace")
    return check


def make_callbacks(worker):
    """A KbxPyCallbacks whose functions call the worker; keep the result alive."""
    def load(request, out, outlen):
        try:
            status, answer = worker.load(request.decode("utf-8", "replace") if request else "{}")
        except BaseException as e:
            status, answer = 1, {"verdict": "error", "message": internal_error("load", e), "line": 0, "col": 0,
                                 "log": []}
        return _answer(out, outlen, status, answer)

    def bind(binding, out, outlen):
        try:
            handle, answer = worker.bind(binding.decode("utf-8", "replace") if binding else "{}")
        except BaseException as e:
            handle, answer = -1, {"message": internal_error("bind", e)}
        _answer(out, outlen, 0, answer)
        return handle

    def unbind(handle):
        try:
            worker.unbind(handle)
        except BaseException as e:
            internal_error("unbind", e)

    def call(handle, mode, out, outlen):
        try:
            status, answer = worker.call(handle, mode)
        except BaseException as e:
            status, answer = 1, {"kind": "exception", "message": internal_error("call", e), "line": 0, "log": []}
        return _answer(out, outlen, status, answer)

    cb = KbxPyCallbacks(KBX_PY_ABI, LOAD(load), BIND(bind), UNBIND(unbind), CALL(call))
    cb._keep = (load, bind, unbind, call)  # the Python functions behind the C pointers
    return cb


def _answer(out, outlen, status, answer):
    try:
        write_answer(out, outlen, answer)
    except BaseException as e:
        try:
            write_answer(out, outlen, {"message": internal_error("answer", e)})
        except BaseException:
            pass
        return 1
    return int(status)


def decode(buf):
    """The JSON answer in a ctypes buffer (for tests and the smoke test)."""
    return json.loads(buf.value.decode("utf-8"))
