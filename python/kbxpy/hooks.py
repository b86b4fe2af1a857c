"""Watching a CHECKED call: Triton launches, autotuners used, and the aten ops that ran.

Triton's API moves between versions, so everything is looked up when first needed and degrades
to "not recorded" (with a log line) rather than failing the call:
  - launches: JITFunction.run is wrapped on the class for the duration of the call (every
    `kernel[grid](...)`, autotuned or not, goes through it); the wrapper records the kernel's
    name and the storages of its pointer arguments;
  - autotuners: Autotuner.run is wrapped the same way to note which autotuners the call used;
  - aten ops: a TorchDispatchMode sees every op with its arguments and results;
  - streams: every launch and op notes the current CUDA stream when it is not the one the call
    was made on (side_streams): such work would escape the timing events recorded on the call's
    stream, so the worker makes the timed calls wait for it (worker.call).
All of it feeds a provenance.Provenance. The TIMED path uses none of this.
"""
import contextlib

from . import provenance


def storage_key(torch, t):
    """(key, nbytes) of a tensor's storage, (0, 0) for none."""
    try:
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    except Exception:
        return 0, 0


def triton_classes(triton):
    """(JITFunction, Autotuner, Heuristics) classes, None where this Triton lacks one."""
    out = []
    for mod_name, cls_name in (("triton.runtime.jit", "JITFunction"), ("triton.runtime.autotuner", "Autotuner"),
                               ("triton.runtime.autotuner", "Heuristics")):
        try:
            mod = __import__(mod_name, fromlist=[cls_name])
            out.append(getattr(mod, cls_name, None))
        except Exception:
            out.append(None)
    return tuple(out)


def kernel_name(obj):
    """The Python name of a JITFunction / Autotuner / Heuristics chain."""
    seen = 0
    while obj is not None and seen < 8:
        fn = getattr(obj, "fn", None)
        if fn is None or not hasattr(obj, "fn"):
            break
        if callable(fn) and hasattr(fn, "__code__"):
            return fn.__name__
        obj = fn
        seen += 1
    return getattr(obj, "__name__", type(obj).__name__)


def inventory(module, triton):
    """(kernels, autotuned): names of the @triton.jit kernels and of the autotuned ones that the
    module defines at top level."""
    jit_cls, auto_cls, heur_cls = triton_classes(triton)
    kinds = tuple(c for c in (jit_cls, auto_cls, heur_cls) if c is not None)
    kernels, autotuned = [], []
    for key, value in module.__dict__.items():
        if kinds and isinstance(value, kinds):
            name = kernel_name(value)
            if name not in kernels:
                kernels.append(name)
            obj = value
            for _ in range(8):
                if auto_cls is not None and isinstance(obj, auto_cls):
                    autotuned.append(name)
                    break
                obj = getattr(obj, "fn", None)
                if obj is None:
                    break
    return kernels, autotuned


class Watch:
    """Context manager for one CHECKED call: patches, records, restores."""

    def __init__(self, torch, triton, prov, stream=None):
        self.torch = torch
        self.triton = triton
        self.prov = prov
        self.stream = stream            # the call's stream, or None: streams not watched
        self.side_streams = set()       # handles of the other streams work went to
        self.autotuners = []
        self.log = []
        self._stack = contextlib.ExitStack()

    def note_stream(self):
        """Note the current stream when it is not the call's (never fails the candidate)."""
        if self.stream is None:
            return
        try:
            cur = int(self.torch.cuda.current_stream().cuda_stream)
            if cur != int(self.stream.cuda_stream):
                self.side_streams.add(cur)
        except Exception:
            pass

    def _pointer_keys(self, values):
        torch = self.torch
        keys = []
        for v in values:
            if isinstance(v, torch.Tensor):
                k, n = storage_key(torch, v)
                if k:
                    self.prov.sizes.setdefault(k, n)
                    keys.append(k)
            elif hasattr(v, "data_ptr") and callable(getattr(v, "data_ptr")):
                try:
                    keys.append(int(v.data_ptr()))
                except Exception:
                    pass
            elif hasattr(v, "base") and isinstance(getattr(v, "base"), torch.Tensor):  # tensor descriptors
                k, n = storage_key(torch, v.base)
                if k:
                    keys.append(k)
        return keys

    def _patch(self, cls, attr, make):
        """Replace cls.attr (its own or inherited) for the call; put back exactly what was there."""
        original = getattr(cls, attr, None)
        if not callable(original):
            self.log.append(f"cannot watch {cls.__name__}.{attr}: not found in this Triton")
            return
        own = attr in cls.__dict__
        setattr(cls, attr, make(original))
        if own:
            self._stack.callback(setattr, cls, attr, original)
        else:
            self._stack.callback(delattr, cls, attr)

    def __enter__(self):
        jit_cls, auto_cls, _ = triton_classes(self.triton)
        watch = self

        if jit_cls is not None:
            def make_run(original):
                def run(self, *args, **kwargs):
                    if not kwargs.get("warmup", False):
                        watch.note_stream()
                        try:
                            watch.prov.kernel(kernel_name(self),
                                              watch._pointer_keys(list(args) + list(kwargs.values())))
                        except Exception as e:  # never let bookkeeping break the candidate
                            watch.log.append(f"launch not recorded: {type(e).__name__}: {e}")
                    return original(self, *args, **kwargs)
                return run
            self._patch(jit_cls, "run", make_run)
        else:
            self.log.append("cannot watch Triton launches: no triton.runtime.jit.JITFunction")

        if auto_cls is not None:
            def make_auto(original):
                def run(self, *args, **kwargs):
                    if self not in watch.autotuners:
                        watch.autotuners.append(self)
                    return original(self, *args, **kwargs)
                return run
            self._patch(auto_cls, "run", make_auto)

        try:
            self._stack.enter_context(make_dispatch_mode(self.torch, self.prov, self.log, self.note_stream))
        except Exception as e:
            self.log.append(f"cannot watch PyTorch ops: {type(e).__name__}: {e}")
        return self

    def __exit__(self, *exc):
        self._stack.close()
        return False


def make_dispatch_mode(torch, prov, log, on_op=None):
    """A TorchDispatchMode instance that reports every aten op to prov (and calls on_op)."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if on_op is not None:
                on_op()
            try:
                note(func, args, kwargs, out)
            except Exception as e:
                if len(log) < 20:
                    log.append(f"op not recorded: {func}: {type(e).__name__}: {e}")
            return out

    def keys_of(values, sizes):
        keys = []
        for v in tree_flatten(values)[0]:
            if isinstance(v, torch.Tensor):
                k, n = storage_key(torch, v)
                if k:
                    keys.append(k)
                    sizes[k] = n
        return keys

    def note(func, args, kwargs, out):
        schema = func._schema
        sizes = {}
        read = keys_of((args, kwargs), sizes)
        written = []
        for i, arg in enumerate(schema.arguments):
            info = arg.alias_info
            if info is None or not info.is_write:
                continue
            value = args[i] if i < len(args) and not arg.kwarg_only else kwargs.get(arg.name)
            written += keys_of(value, sizes)
        fresh = [k for k in keys_of(out, sizes) if k not in read]
        prov.op(schema.name + ("." + schema.overload_name if schema.overload_name else ""),
                read, fresh, written, sizes)

    return Recorder()
