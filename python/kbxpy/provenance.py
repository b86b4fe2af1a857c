"""Where each output's data came from: Triton kernels of the candidate, or PyTorch ops.

Pure bookkeeping, no torch: storages are integer keys (a storage's device address), origins are
strings: "input:NAME" (a bound input's initial value), "triton:KERNEL" (a Triton launch that was
passed the storage), "aten:OP" (a PyTorch compute op). The CHECKED call feeds it from a
TorchDispatchMode (every aten op with the storages it read, created and wrote) and from the
Triton launch hook (every kernel with the storages it was passed).

Rules:
  - allocation ops (empty, zeros, full, fill_ ...) give fresh storages no origin;
  - glue ops (copy_, clone, to, view, reshape, permute, expand, cat ...) pass on the union of
    the origins of what they read;
  - any other op is compute: the union of what it read plus "aten:OP";
  - a written (mutated) storage keeps its origins and gains the new ones;
  - a Triton launch adds "triton:KERNEL" to every storage passed to it except the bound input
    buffers (a kernel that only reads an input does not make the input its product).
An output is "not a kernel's" when its origins hold a PyTorch compute op and no Triton kernel;
outputs made by glue alone (an inout buffer returned unchanged) are left to the comparison.
"""

ALLOC_OPS = frozenset("""
empty empty_like empty_strided new_empty new_empty_strided zeros zeros_like new_zeros ones ones_like
new_ones full full_like new_full fill fill_ zero zero_ scalar_tensor empty_permuted resize_ set_
""".split())

GLUE_OPS = frozenset("""
copy copy_ _copy_from _copy_from_and_resize clone _to_copy to contiguous view _unsafe_view reshape
_reshape_alias view_as permute expand expand_as expand_copy cat concat concatenate stack t transpose
transpose_ squeeze squeeze_ unsqueeze unsqueeze_ slice select as_strided as_strided_ detach alias
lift_fresh lift_fresh_copy split split_with_sizes chunk narrow flatten unflatten unbind movedim
constant_pad_nd pad repeat view_as_real view_as_complex resolve_conj resolve_neg _conj type_as
_unsafe_index slice_scatter select_scatter unfold clone_ _to_dtype squeeze_copy unsqueeze_copy
view_copy permute_copy t_copy transpose_copy detach_ index_select
""".split())

IGNORED_OPS = frozenset("""
_local_scalar_dense item is_nonzero equal record_stream sym_size sym_stride sym_numel
sym_storage_offset is_same_size _has_compatible_shallow_copy_type
""".split())


def op_basename(name):
    """'aten::add_.Tensor' or 'add_.Tensor' -> 'add_'."""
    name = name.split("::", 1)[-1]
    return name.split(".", 1)[0]


def classify(name):
    """'alloc', 'glue', 'ignore' or 'compute' for an aten op name."""
    base = op_basename(name)
    if base in IGNORED_OPS:
        return "ignore"
    if base in ALLOC_OPS:
        return "alloc"
    if base in GLUE_OPS:
        return "glue"
    return "compute"


class Provenance:
    """Origins per storage key, and the record of aten ops and Triton launches of one call."""

    def __init__(self):
        self.origins = {}        # key -> set of origin strings
        self.sizes = {}          # key -> bytes, for locating raw pointers inside storages
        self.inputs = set()      # keys of bound "in" buffers
        self.aten_ops = {}       # op -> count, compute ops only
        self.glue_ops = {}       # op -> count, glue and alloc ops
        self.launches = {}       # kernel name -> count
        self.launch_order = []   # kernel names in first-launch order

    # --- what is there before the call

    def bind(self, key, size, name, direction):
        if not key:
            return
        self.sizes[key] = size
        self.origins[key] = {f"input:{name}"} if direction in ("in", "inout") else set()
        if direction == "in":
            self.inputs.add(key)

    # --- events

    def _get(self, key):
        return self.origins.get(key, set())

    def op(self, name, read, fresh, written, sizes=None):
        """An aten op read storages `read`, created `fresh` (new results) and mutated `written`."""
        kind = classify(name)
        if kind == "ignore":
            return
        base = op_basename(name)
        if sizes:
            self.sizes.update((k, v) for k, v in sizes.items() if k)
        if kind == "compute":
            self.aten_ops[base] = self.aten_ops.get(base, 0) + 1
        else:
            self.glue_ops[base] = self.glue_ops.get(base, 0) + 1
        new = set()
        if kind != "alloc":
            for k in read:
                new |= self._get(k)
            if kind == "compute":
                new.add(f"aten:{base}")
        for k in fresh:
            if k and k not in written:
                self.origins[k] = set(new)
        for k in written:
            if k:
                self.origins[k] = self._get(k) | new

    def locate(self, ptr):
        """The storage key whose bytes hold address ptr, else ptr itself."""
        if ptr in self.origins:
            return ptr
        for k, size in self.sizes.items():
            if k <= ptr < k + max(size, 1):
                return k
        return ptr

    def kernel(self, name, keys):
        """A Triton kernel was launched with pointers into storages `keys`."""
        if name not in self.launches:
            self.launch_order.append(name)
        self.launches[name] = self.launches.get(name, 0) + 1
        for k in keys:
            if not k:
                continue
            k = self.locate(k)
            if k in self.inputs:
                continue
            self.origins[k] = self._get(k) | {f"triton:{name}"}

    # --- verdicts

    def of(self, key):
        return set(self._get(self.locate(key))) if key else set()

    @staticmethod
    def split(origins):
        kernels = sorted(o.split(":", 1)[1] for o in origins if o.startswith("triton:"))
        ops = sorted(o.split(":", 1)[1] for o in origins if o.startswith("aten:"))
        inputs = sorted(o.split(":", 1)[1] for o in origins if o.startswith("input:"))
        return kernels, ops, inputs

    def judge(self, outputs, idle=False):
        """outputs: {name: storage key}; idle: the case has no element to compute (every input
        or every output empty), where no kernel is needed. (problem message or None, log lines)."""
        log = []
        if self.launch_order:
            log.append("triton kernels launched: " + ", ".join(
                f"{k} x{self.launches[k]}" for k in self.launch_order))
        else:
            log.append("triton kernels launched: none")
        if self.aten_ops:
            log.append("pytorch compute ops: " + ", ".join(
                f"{k} x{v}" for k, v in sorted(self.aten_ops.items())))
        bad = []
        for name, key in outputs.items():
            kernels, ops, inputs = self.split(self.of(key))
            parts = []
            if kernels:
                parts.append("triton " + ", ".join(kernels))
            if ops:
                parts.append("pytorch " + ", ".join(ops))
            if inputs and not kernels and not ops:
                parts.append("the inputs " + ", ".join(inputs) + " unchanged")
            log.append(f"output '{name}' <- " + ("; ".join(parts) if parts else "nothing recorded"))
            if ops and not kernels:
                bad.append((name, ops))
        if idle:
            log.append("no element to compute in this case: no kernel is required")
            return None, log
        if not self.launch_order:
            return "the candidate launched no Triton kernel" + (
                " (PyTorch ops: " + ", ".join(sorted(self.aten_ops)) + ")" if self.aten_ops else ""), log
        if bad:
            name, ops = bad[0]
            more = f" (and {len(bad) - 1} more output(s))" if len(bad) > 1 else ""
            return (f"output '{name}' was computed by PyTorch ops ({', '.join(ops)}), "
                    f"not by a Triton kernel of the candidate{more}"), log
        return None, log
