"""An autotuned kernel checked with every config it may pick, not only the one it picked here.

For every triton Autotuner the call used, the entry function runs again once per config, with
the autotuner restricted to that one config (a one-config autotuner runs it without
benchmarking) and its cache cleared; both are restored afterwards. The bound buffers end up with
the outputs of the config farthest from the reference (NaN-aware max abs difference against the
"ref_ptr" buffers), so the engine's comparison judges the worst config. Configs the autotuner
itself would drop (out of resources, ptxas failure, compile-time assertion) are skipped.
"""


def max_abs_diff(torch, out, ref):
    """Max |out - ref| over all elements; NaN where both are NaN and equal infinities count 0,
    NaN against a number counts +inf."""
    if out.numel() == 0:
        return 0.0
    o, r = out.reshape(-1), ref.reshape(-1)
    if o.dtype == torch.bool:
        o, r = o.to(torch.int64), r.to(torch.int64)
    if o.is_complex():
        d = (o.to(torch.complex128) - r.to(torch.complex128)).abs()
        same = (o == r) | ((o != o) & (r != r))
    else:
        o64, r64 = o.to(torch.float64), r.to(torch.float64)
        d = (o64 - r64).abs()
        same = (o64 == r64) | (torch.isnan(o64) & torch.isnan(r64))
    d = torch.where(same, torch.zeros_like(d), d)
    d = torch.where(torch.isnan(d), torch.full_like(d, float("inf")), d)
    return float(d.max().item())


def skippable(triton):
    """Exception classes an autotuner treats as 'this config does not run here'."""
    out = []
    for mod_name, names in (("triton.runtime.errors", ("OutOfResources", "PTXASError")),
                            ("triton.compiler.errors", ("CompileTimeAssertionFailure",))):
        try:
            mod = __import__(mod_name, fromlist=list(names))
        except Exception:
            continue
        out += [getattr(mod, n) for n in names if isinstance(getattr(mod, n, None), type)]
    return tuple(out)


def sweep(torch, triton, autotuners, run_once, outputs, refs, log):
    """run_once(): restore inputs, call the entry, copy its outputs into the bound buffers and
    synchronise (exceptions propagate: a config that fails is a failure of the candidate).
    outputs: {name: bound tensor}; refs: {name: reference tensor} (may be empty).
    Leaves the worst config's outputs in the bound buffers; returns nothing."""
    skip = skippable(triton)
    worst = None  # (diff, label, {name: clone})
    for tuner in autotuners:
        configs = list(getattr(tuner, "configs", []) or [])
        if len(configs) < 2:
            continue
        name = getattr(getattr(tuner, "base_fn", None), "__name__", None) or "autotuned kernel"
        saved_cache = getattr(tuner, "cache", None)
        try:
            for i, cfg in enumerate(configs):
                tuner.configs = [cfg]
                tuner.cache = {}
                label = f"{name} config {i + 1}/{len(configs)} ({cfg})"
                try:
                    run_once()
                except skip as e:
                    log.append(f"autotune: {label} skipped: {type(e).__name__}")
                    continue
                except Exception as e:
                    # say which config failed, then let the caller report the exception
                    e.kbx_autotune_config = label
                    raise
                if refs:
                    diff = max(max_abs_diff(torch, outputs[k], refs[k]) for k in refs if k in outputs) \
                        if any(k in outputs for k in refs) else 0.0
                    log.append(f"autotune: {label}: max abs diff {diff:.3g}")
                    if worst is None or diff > worst[0]:
                        worst = (diff, label, {k: v.clone() for k, v in outputs.items()})
                else:
                    log.append(f"autotune: {label} ran")
        finally:
            tuner.configs = configs
            tuner.cache = saved_cache if saved_cache is not None else {}
    if worst is not None:
        for k, v in worst[2].items():
            outputs[k].copy_(v)
        torch.cuda.synchronize()
        log.append(f"autotune: outputs kept from {worst[1]} (farthest from the reference, {worst[0]:.3g})")
