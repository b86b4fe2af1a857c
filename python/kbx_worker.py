#!/usr/bin/env python3
"""kbx's Python worker: runs KernelBenchX-format (Python/Triton) candidates for kbx's engine.

    KBX_PYLIB=/path/to/libkbxpy.so python3 kbx_worker.py

The parent (kbx) starts it like `kbx worker`: own process group, private temporary working
folder, scrubbed environment, TRITON_CACHE_DIR set. The engine (libkbxpy.so) reads requests on
stdin and writes events on stdout; this program only supplies the callbacks of core/pyhost.h.
torch is imported lazily by the first load(), after kbx's allocator library is loaded, so that
the allocator can be installed before torch initialises CUDA. Python-level output (a
candidate's print) goes to stderr: stdout belongs to the event protocol.
"""
import os
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    protocol = sys.stdout
    sys.stdout = sys.stderr  # print() from a candidate must not corrupt the event stream
    path = os.environ.get("KBX_PYLIB")
    if not path:
        print("kbx_worker.py: KBX_PYLIB (the path of libkbxpy.so) is not set", file=sys.stderr)
        return 2
    from kbxpy import cabi
    try:
        lib = cabi.open_library(path)
    except OSError as e:
        print(f"kbx_worker.py: cannot load '{path}': {e}", file=sys.stderr)
        return 2
    protocol.flush()
    return serve(lib, path)


def serve(lib, path):
    """Hand the callbacks to lib.kbx_py_main and return its status. lib: libkbxpy.so as
    cabi.open_library gives it, or a stand-in with kbx_py_main and kbx_alloc_check (tests)."""
    from kbxpy import cabi
    from kbxpy.runtime import Runtime
    from kbxpy.worker import Worker
    worker = Worker(Runtime(path), cabi.alloc_checker(lib))
    callbacks = cabi.make_callbacks(worker)  # alive until kbx_py_main returns, with its functions
    return int(lib.kbx_py_main(callbacks))


def leave(status):
    """Exit without Python's teardown (torch and Triton threads, CUDA destructors): the engine
    is done; flush C's and Python's streams and go."""
    import ctypes
    try:
        ctypes.CDLL(None).fflush(None)
    except Exception:
        pass
    for stream in (sys.stdout, sys.stderr, sys.__stdout__):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(status)


if __name__ == "__main__":
    leave(main())
