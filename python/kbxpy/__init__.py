"""kbxpy: the Python side of kbx's Python worker (see core/pyhost.h for the contract).

The worker process (python/kbx_worker.py) loads kbx's engine as a shared library (libkbxpy.so)
and hands it four callbacks: load, bind, unbind and call. The engine does everything it does for
a CUDA candidate (inputs, reference, poisoning, guard zones, comparison, timing); this package
only imports the candidate, wraps the engine's device buffers as torch tensors, calls the
candidate's entry function through the task's crosscheck.py and reports what happened.

Modules, lowest first:
  answer      JSON answers that always fit the engine's buffer
  source      syntax check, executing a candidate as a module, mapping errors to its lines
  signature   does the entry function take the call the task makes
  provenance  which storage's data came from which Triton kernel or PyTorch op (pure data)
  dtypes      kbx dtype names <-> torch dtypes, buffer wrapping
  runtime     lazy import of torch and triton, the allocators, the not_run messages
  tasks       a task's crosscheck.py (cached), and the default call when a task has none
  hooks       recording Triton launches and autotuners, the aten dispatch mode
  outputs     copying returned outputs into the bound buffers
  autotune    re-running the entry once per autotune config
  worker      the four callbacks
  cabi        ctypes: struct kbx_py_callbacks, the allocator check, writing answers
"""
