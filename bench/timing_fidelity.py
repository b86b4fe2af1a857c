#!/usr/bin/env python3
"""Timing fidelity: kbx's median against triton.testing.do_bench's median for the same cubin.

usage: bench/timing_fidelity.py [--kbx PATH] [--tasks DIR] [--rounds N] [--only NAME,...] [--ncu]
                                [--out FILE]

For each case in CASES, kbx verifies and times the task's reference at one perf row
(`kbx run TASK reference.cu --rows K --json --save-cubin F`: K = 1 for the largest row, all rows
for the smallest), then this script loads the very cubin kbx compiled with CuPy and times the
same launch sequence (every `// @kbx launch` line of the reference, in order, with the same
grid, block, shared memory and argument types) with triton.testing.do_bench (warmup 25 ms,
rep 100 ms, median) on inputs of the same sizes, dtypes and distributions. Rounds alternate kbx
and do_bench so that clock drift hits both; the table gives the median of the per-round medians.

With --ncu and Nsight Compute installed, a third column: ncu's gpu__time_duration.sum of the
same sequence (summed over its kernels; caches flushed, clocks left alone), the median over a
few calls of a small driver (this script with --ncu-driver).

Pass: every case whose do_bench median is at least 20 us is within 3 %; the tiny case (gelu at
n = 4096) and anything under 20 us are reported only (doc/timing.md says why). Exit 0 on pass,
1 otherwise (or when a case could not be measured). Needs a GPU, PyTorch, Triton and CuPy.
"""
import argparse
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import namedtuple

import cupy
import numpy
import torch
import triton
import triton.testing

TOLERANCE_PCT = 3.0
MIN_GATED_MS = 0.020

# C parameter types of the kernels: long long, int, float, double. Buffers are passed as their
# device address (a 64-bit value), which is what a `T *` parameter takes.
i64, i32, f32, f64 = numpy.int64, numpy.int32, numpy.float32, numpy.float64

# One `// @kbx launch KERNEL<<<grid, block, smem>>>(args)` line, evaluated for one perf row.
Launch = namedtuple("Launch", "kernel grid block smem args")


def cdiv(a, b):
    return (a + b - 1) // b


def launch(kernel, grid, block, args, smem=0):
    def dim3(v):
        v = tuple(int(x) for x in (v if isinstance(v, tuple) else (v,)))
        return v + (1,) * (3 - len(v))
    return Launch(kernel, dim3(grid), dim3(block), int(smem), tuple(args))


def sms():
    return torch.cuda.get_device_properties(0).multi_processor_count


# Inputs with the [perf] generator's distribution (values never reach the timing, sizes and
# dtypes do). uniform(lo, hi) -> torch.rand * (hi - lo) + lo; randn -> torch.randn.
def uniform(shape, lo=0.0, hi=1.0, dtype=torch.float32):
    x = torch.rand(shape, device="cuda", dtype=torch.float32)
    if (lo, hi) != (0.0, 1.0):
        x = x * (hi - lo) + lo
    return x.to(dtype)


def randn(shape, dtype=torch.float32):
    return torch.randn(shape, device="cuda", dtype=torch.float32).to(dtype)


def zeros(shape, dtype=torch.float32):
    return torch.zeros(shape, device="cuda", dtype=dtype)


def empty(shape, dtype=torch.float32):
    return torch.empty(shape, device="cuda", dtype=dtype)


# ---------------------------------------------------------------------------------- cases ----
# Each builder evaluates the reference's launch lines for one perf row of its task.ini and
# returns the launches (tensors inside keep the buffers alive).

def gelu_launches(n):
    # Activation/gelu [perf]: n = pow2(12..27), approximate = 0, x = uniform(0, 1)
    # gelu_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n, approximate)
    # (const float *x, float *y, long long n, int approximate)
    def make():
        x = uniform([n])
        y = empty([n])
        return [launch("gelu_f32", max(1, cdiv(n, 4096)), 256, (x, y, i64(n), i32(0)))]
    return make


def add_launches():
    # Math/add [perf]: n = pow2(12..27), m = n, alpha = 1, input, other = uniform(0, 1)
    # add_f32<<<max(1, cdiv(n, 1024)), 256>>>(input, other, out, n, m, alpha)
    # (const float *, const float *, float *, long long n, long long m, float alpha)
    n = 2 ** 27
    m = n
    inp, other, out = uniform([n]), uniform([m]), empty([n])
    return [launch("add_f32", max(1, cdiv(n, 1024)), 256, (inp, other, out, i64(n), i64(m), f32(1)))]


def sum_launches():
    # Reduce/sum [perf]: a = 1, b = 1, c = pow2(12..27), d = 1, x = uniform(0, 1)
    # scratch part f64 [b * d * P], P = max(1, min(cdiv(c, 8192), 1024))
    # sum_partial<<<dim3(max(1, b * d), P), 256>>>(x, part, a, b, c, d)
    #   (const float *, double *, long long a, long long b, long long c, long long d)
    # sum_final<<<max(1, b * d), 256>>>(part, y, i64(b * d), i64(P))
    #   (const double *, float *, long long outputs, long long chunks)
    a, b, c, d = 1, 1, 2 ** 27, 1
    p = max(1, min(cdiv(c, 8192), 1024))
    x, y = uniform([a, b, c, d]), empty([b, d])
    part = empty([b * d * p], torch.float64)
    return [launch("sum_partial", (max(1, b * d), p), 256, (x, part, i64(a), i64(b), i64(c), i64(d))),
            launch("sum_final", max(1, b * d), 256, (part, y, i64(b * d), i64(p)))]


def softmax_launches():
    # Math/softmax [perf]: a = 1024, d = pow2(4..19), b = 1, x = randn
    # softmax_f32<<<max(1, a * cdiv(b, 256)), 256>>>(x, y, a, d, b)
    # (const float *, float *, long long a, long long d, long long b)
    a, d, b = 1024, 2 ** 19, 1
    x, y = randn([a, d, b]), empty([a, d, b])
    return [launch("softmax_f32", max(1, a * cdiv(b, 256)), 256, (x, y, i64(a), i64(d), i64(b)))]


def matmul_launches():
    # MatrixMultiply/matmul [perf]: batch = 1, m = k = n = range(256..4096:128), a, b = uniform(0, 1)
    # matmul_tiled<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64)), max(1, batch)), 256>>>(a, b, c, m, k, n)
    # (const float *, const float *, float *, long long m, long long k, long long n)
    batch, m, k, n = 1, 4096, 4096, 4096
    a, b, c = uniform([batch, m, k]), uniform([batch, k, n]), empty([batch, m, n])
    grid = (max(1, cdiv(n, 64)), max(1, cdiv(m, 64)), max(1, batch))
    return [launch("matmul_tiled", grid, 256, (a, b, c, i64(m), i64(k), i64(n)))]


def matmul_fp16_launches():
    # MatrixMultiply/matmul_fp16 [perf]: batch = 1, m = k = n = range(256..4096:128), a, b = randn, f16
    # matmul_fp16_wmma<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(m, 128)), max(1, batch)), 256>>>(a, b, c, m, k, n)
    # (const __half *, const __half *, __half *, long long m, long long k, long long n)
    batch, m, k, n = 1, 4096, 4096, 4096
    h = torch.float16
    a, b, c = randn([batch, m, k], h), randn([batch, k, n], h), empty([batch, m, n], h)
    grid = (max(1, cdiv(n, 128)), max(1, cdiv(m, 128)), max(1, batch))
    return [launch("matmul_fp16_wmma", grid, 256, (a, b, c, i64(m), i64(k), i64(n)))]


def fused_add_gelu_launches():
    # Fusion/fused_add_gelu [perf]: n = pow2(12..27), alpha = 1, approximate = 0, input, other = uniform(0, 1)
    # scratch add f32 [n]
    # add_alpha<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, other, add, n, alpha)
    #   (const float *, const float *, float *, long long n, float alpha)
    # gelu<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(add, y, n, approximate)
    #   (const float *, float *, long long n, int approximate)
    n = 2 ** 27
    inp, other, add, y = uniform([n]), uniform([n]), empty([n]), empty([n])
    g = max(1, min(cdiv(n, 256), 65536))
    return [launch("add_alpha", g, 256, (inp, other, add, i64(n), f32(1))),
            launch("gelu", g, 256, (add, y, i64(n), i32(0)))]


def batch_norm_launches():
    # Normalization/batch_norm [perf]: n = 32, c = 32, h = range(640..1536:128), w = 128, training = 0,
    # momentum = 0.1, eps = 1e-5; x = randn (f16), running_mean = randn, running_var = uniform(1e-5, 2),
    # weight = randn, bias = randn (f32 [c]); y f16
    # scratch mean_c f32 [c], invstd_c f32 [c]
    # bn_stats<<<max(1, c), 256>>>(x, running_mean, running_var, mean_c, invstd_c, n, c, i64(h * w),
    #                              training, momentum, eps)
    #   (const __half *, float *, float *, float *, float *, long long n, long long c, long long hw,
    #    int training, float momentum, float eps)
    # bn_apply<<<dim3(max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256>>>(x, mean_c,
    #          invstd_c, weight, bias, y, n, c, i64(h * w))
    #   (const __half *, const float *, const float *, const float *, const float *, __half *,
    #    long long n, long long c, long long hw)
    n, c, h, w = 32, 32, 1536, 128
    x, y = randn([n, c, h, w], torch.float16), empty([n, c, h, w], torch.float16)
    running_mean, running_var = randn([c]), uniform([c], 0.00001, 2.0)
    weight, bias = randn([c]), randn([c])
    mean_c, invstd_c = empty([c]), empty([c])
    return [launch("bn_stats", max(1, c), 256, (x, running_mean, running_var, mean_c, invstd_c, i64(n), i64(c),
                                                 i64(h * w), i32(0), f32(0.1), f32(1e-5))),
            launch("bn_apply", (max(1, min(cdiv(h * w, 2048), 1024)), max(1, min(n * c, 65535))), 256,
                   (x, mean_c, invstd_c, weight, bias, y, i64(n), i64(c), i64(h * w)))]


def layernorm_w8a8_launches():
    # Quantization/layernorm_w8a8 [perf]: (rows, d) = (32, 2048), (64, 4096), (32, 8192), eps = 1e-5,
    # input, weight, bias = uniform(0, 1)
    # layernorm_q8<<<max(1, rows), 256>>>(input, weight, bias, y, rows, d, eps)
    # (const float *, const float *, const float *, float *, long long rows, long long d, float eps)
    rows, d = 32, 8192
    inp, weight, bias, y = uniform([rows, d]), uniform([d]), uniform([d]), empty([rows, d])
    return [launch("layernorm_q8", max(1, rows), 256, (inp, weight, bias, y, i64(rows), i64(d), f32(1e-5)))]


def adam_launches():
    # Optimizer/Adam [perf]: n = pow2(12..27), lr = 0.001, beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
    # weight_decay = 0, param, grad = uniform(0, 1), exp_avg, exp_avg_sq, step = zeros (step is f32 [])
    # scratch coef f32 [2]
    # adam_advance_step<<<1, 32>>>(step, coef, lr, beta1, beta2)
    #   (float *step, float *coef, double lr, double beta1, double beta2)
    # adam_update<<<max(1, min(cdiv(n, 1024), sms * 32)), 256>>>(param, grad, exp_avg, exp_avg_sq, coef, n,
    #             beta1, beta2, eps, weight_decay)
    #   (float *, const float *, float *, float *, const float *, long long n, double beta1,
    #    double beta2, double eps, double weight_decay)
    # The state (param, moments, step) carries over from call to call, in kbx's timing loop too.
    n = 2 ** 27
    param, grad = uniform([n]), uniform([n])
    exp_avg, exp_avg_sq, step = zeros([n]), zeros([n]), zeros([])
    coef = empty([2])
    return [launch("adam_advance_step", 1, 32, (step, coef, f64(0.001), f64(0.9), f64(0.999))),
            launch("adam_update", max(1, min(cdiv(n, 1024), sms() * 32)), 256,
                   (param, grad, exp_avg, exp_avg_sq, coef, i64(n), f64(0.9), f64(0.999), f64(1e-8), f64(0)))]


def cross_entropy_launches():
    # Loss/cross_entropy [perf]: n = pow2(8..15), c = 1000, s = 1, cw = 0 (no weight), m = 1,
    # ignore_index = -100, reduction = 1 (mean); input = randn [n, c, s], target = randint(0, 1000) i64 [n, s]
    # scratch part f64 [2 * P], P = max(1, min(cdiv(n * s, 64), 2048))
    # ce_rows<<<P, 256>>>(input, target, weight, y, part, n, c, s, cw, ignore_index, reduction)
    #   (const float *, const long long *, const float *, float *, double *, long long n, long long c,
    #    long long s, long long cw, long long ignore_index, int reduction)
    # ce_final<<<1, 256>>>(part, y, i64(P), reduction)
    #   (const double *, float *, long long chunks, int reduction)
    n, c, s, cw, m = 2 ** 15, 1000, 1, 0, 1
    p = max(1, min(cdiv(n * s, 64), 2048))
    inp = randn([n, c, s])
    target = torch.randint(0, 1000, (n, s), device="cuda", dtype=torch.int64)
    weight, y = empty([cw]), empty([m])
    part = empty([2 * p], torch.float64)
    return [launch("ce_rows", p, 256, (inp, target, weight, y, part, i64(n), i64(c), i64(s), i64(cw), i64(-100),
                                       i32(1))),
            launch("ce_final", 1, 256, (part, y, i64(p), i32(1)))]


def case(name, task, row, input_size, make, tiny=False, src=None):
    """row: the perf row (0-based; negative counts from the end, as kbx's --rows does);
    input_size: what kbx reports for that row (checked, so that the row is the one built here)."""
    return {"name": name, "task": task, "src": task + "/" + (src or "reference.cu"), "row": row, "input_size": input_size,
            "make": make, "tiny": tiny}


N27 = 2 ** 27
CASES = [
    case("gelu", "Activation/gelu", -1, [N27], gelu_launches(N27)),
    case("gelu_tiny", "Activation/gelu", 0, [4096], gelu_launches(4096), tiny=True),
    case("add", "Math/add", -1, [[N27], [N27]], add_launches),
    case("sum", "Reduce/sum", -1, [N27], sum_launches),
    case("softmax", "Math/softmax", -1, [1024, 2 ** 19], softmax_launches),
    case("matmul", "MatrixMultiply/matmul", -1, [[4096, 4096], [4096, 4096]], matmul_launches),
    case("matmul_fp16", "MatrixMultiply/matmul_fp16", -1, [[4096, 4096], [4096, 4096]], matmul_fp16_launches),
    case("fused_add_gelu", "Fusion/fused_add_gelu", -1, [[N27], [N27]], fused_add_gelu_launches),
    case("batch_norm", "Normalization/batch_norm", -1, [[32, 32, 1536, 128], [32], [32], [32], [32]],
         batch_norm_launches),
    case("layernorm_w8a8", "Quantization/layernorm_w8a8", -1, [[32, 8192], [8192], [8192]],
         layernorm_w8a8_launches),
    case("adam", "Optimizer/Adam", -1, [[N27]], adam_launches),
    # the launches above are the former reference's (the reference since 2026-12-04 is ce_rows_fast)
    case("cross_entropy", "Loss/cross_entropy", -1, [[2 ** 15, 1000], [2 ** 15]], cross_entropy_launches,
         src="examples/pass_former_reference.cu"),
]


# ------------------------------------------------------------------------------------ kbx ----

class CaseError(Exception):
    pass


KBX_EXTRA = []  # --kbx-arg: more options for every kbx run (e.g. --hide-latency)


def kbx_median(kbx, tasks, task, src, cubin, row, want_size):
    """kbx's candidate median (ms) and sample count at perf row `row` (negative: from the end).
    A row from the end is timed with --rows -row (that row and the ones after it); a row from
    the start with every row."""
    cmd = [kbx, "--tasks", tasks, "run", task, src, "--json", "--no-history", "--no-derived", "--save-cubin", cubin]
    if row < 0:
        cmd[6:6] = ["--rows", str(-row)]
    cmd += KBX_EXTRA
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise CaseError(f"{task}: kbx did not finish in 600 s")
    try:
        text = out.stdout
        doc = json.loads(text[text.index("{"):text.rindex("}") + 1])
    except ValueError:
        raise CaseError(f"{task}: kbx exit {out.returncode}, no JSON: {out.stderr.strip()[-500:]}")
    if doc.get("verdict") != "pass":
        raise CaseError(f"{task}: kbx verdict {doc.get('verdict')}: {doc.get('summary', {}).get('message')}")
    perf = sorted(doc.get("perf", []), key=lambda p: p["row"])
    if not perf:
        raise CaseError(f"{task}: kbx timed no perf row")
    want = perf[0]["row"] if row < 0 else row  # with --rows -row, the first timed row is the one asked for
    hit = [p for p in perf if p["row"] == want]
    if not hit:
        raise CaseError(f"{task}: kbx timed rows {[p['row'] for p in perf]}, not row {want}")
    p = hit[0]
    if json.loads(p["input_size"]) != want_size:
        raise CaseError(f"{task}: kbx's row {want + 1} has input_size {p['input_size']}, this script builds "
                        f"{json.dumps(want_size)}")
    if not p.get("correct") or not p["cand"]["median"] or p["cand"]["median"] <= 0:
        raise CaseError(f"{task}: kbx's row {want + 1} has no timing: {p.get('message')}")
    return p["cand"]["median"], p["cand"]["n"], want


# ------------------------------------------------------------------------------- do_bench ----

def sequence(cubin, launches):
    """A function that launches the whole sequence once from the cubin, on torch's stream."""
    mod = cupy.RawModule(path=cubin)
    calls = []
    for ln in launches:
        fn = mod.get_function(ln.kernel)
        if ln.smem > 48 * 1024:  # what kbx does for more than 48 KiB of dynamic shared memory
            fn.max_dynamic_shared_size_bytes = ln.smem
        raw = tuple(numpy.uint64(a.data_ptr()) if isinstance(a, torch.Tensor) else a for a in ln.args)
        calls.append((fn, ln.grid, ln.block, raw, ln.smem))

    def call():
        for fn, grid, block, raw, smem in calls:
            fn(grid, block, raw, shared_mem=smem)
    return call, mod


_ALL_TIMES = [True]  # whether this Triton's do_bench accepts return_mode="all"


def bench_median(cubin, launches):
    """do_bench's median (ms) of the sequence and its number of samples (0 when unknown)."""
    call, mod = sequence(cubin, launches)
    tptr = torch.cuda.current_stream().cuda_stream
    stream = cupy.cuda.ExternalStream(tptr) if cupy.cuda.get_current_stream().ptr != tptr else None
    if stream is not None:
        stream.use()
    try:
        call()
        torch.cuda.synchronize()
        if _ALL_TIMES[0]:
            try:
                times = triton.testing.do_bench(call, warmup=25, rep=100, return_mode="all")
                if isinstance(times, (list, tuple)) and times:
                    # the median kbx takes: the middle sample, or the mean of the two middle ones
                    return statistics.median(float(t) for t in times), len(times)
            except (AssertionError, TypeError, ValueError, AttributeError):
                pass
            _ALL_TIMES[0] = False
        return float(triton.testing.do_bench(call, warmup=25, rep=100, return_mode="median")), 0
    finally:
        if stream is not None:
            cupy.cuda.Stream.null.use()
        torch.cuda.synchronize()
        del mod


# ------------------------------------------------------------------------------------ ncu ----

def find_ncu():
    for p in (shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if p and os.access(p, os.X_OK):
            return p
    return None


def ncu_driver(name, cubin, iters):
    """Under ncu: build the case's inputs and run its sequence `iters` times."""
    c = next(c for c in CASES if c["name"] == name)
    launches = c["make"]()
    torch.cuda.synchronize()
    call, _ = sequence(cubin, launches)
    for _ in range(iters):
        call()
        torch.cuda.synchronize()
    return 0


def ncu_to_ms(value, unit):
    v = float(value.replace(",", ""))
    scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0,
             "second": 1e3, "s": 1e3}
    if unit not in scale:
        raise ValueError(f"unit '{unit}'")
    return v * scale[unit]


def ncu_median(ncu, c, cubin, launches, iters=6):
    """Median over iters - 1 calls (the first is a warm-up) of the sum of gpu__time_duration.sum
    over the sequence's kernels; (None, why) when ncu cannot tell."""
    names = [ln.kernel for ln in launches]
    cmd = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", "gpu__time_duration.sum",
           "--kernel-name-base", "mangled", "--kernel-name", "regex:^(" + "|".join(sorted(set(names))) + ")$",
           "--cache-control", "all", "--clock-control", "none", "--target-processes", "all",
           sys.executable, os.path.abspath(__file__), "--ncu-driver", c["name"], "--cubin", cubin,
           "--ncu-iters", str(iters)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "ncu did not finish in 300 s"
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r and "ID" in r), None)
    if head is None:
        tail = (out.stdout + out.stderr).strip().splitlines()[-3:]
        return None, f"ncu exit {out.returncode}, no results: " + " | ".join(tail)
    h = rows[head]
    kcol = h.index("Kernel Name")
    durs = []
    try:
        if "gpu__time_duration.sum" in h:  # raw page: one row per kernel, a units row first
            mcol = h.index("gpu__time_duration.sum")
            unit = "nsecond"
            for r in rows[head + 1:]:
                if len(r) != len(h):
                    continue
                if not r[0].strip():
                    unit = r[mcol].strip() or unit
                    continue
                durs.append((int(r[0]), r[kcol], ncu_to_ms(r[mcol], unit)))
        else:  # details page: one row per metric
            ncol, ucol, vcol = h.index("Metric Name"), h.index("Metric Unit"), h.index("Metric Value")
            for r in rows[head + 1:]:
                if len(r) == len(h) and r[ncol] == "gpu__time_duration.sum":
                    durs.append((int(r[0]), r[kcol], ncu_to_ms(r[vcol], r[ucol])))
    except ValueError as e:
        return None, f"cannot read ncu's CSV: {e}"
    durs.sort()
    if len(durs) != iters * len(names):
        return None, f"ncu profiled {len(durs)} kernels, expected {iters} x {len(names)}"
    for i, (_, k, _) in enumerate(durs):
        if k.split("(")[0].strip() != names[i % len(names)]:
            return None, f"ncu's kernel {i + 1} is '{k}', expected '{names[i % len(names)]}'"
    sums = [sum(d for _, _, d in durs[j:j + len(names)]) for j in range(0, len(durs), len(names))]
    return statistics.median(sums[1:]), None


# ----------------------------------------------------------------------------------- main ----

def fmt(v, w=10):
    return f"{v:{w}.5f}" if isinstance(v, (int, float)) and v == v else f"{'-':>{w}}"


def print_table(rows, with_ncu):
    head = f"{'case':16} {'task':28} {'row':>4} {'kbx ms':>10} {'do_bench ms':>12} {'diff':>8}"
    if with_ncu:
        head += f" {'ncu ms':>10}"
    print(head + "  gate   rounds (kbx | do_bench)")
    for r in rows:
        line = (f"{r['name']:16} {r['task']:28} {(r['row'] + 1) if r['row'] is not None else '-':>4} "
                f"{fmt(r['kbx_median'])} {fmt(r['do_bench_median'], 12)} "
                + (f"{r['diff_pct']:7.2f}%" if r["diff_pct"] is not None else f"{'-':>8}"))
        if with_ncu:
            line += " " + fmt(r.get("ncu_ms"))
        line += f"  {r['gate']:6} "
        line += " ".join(f"{v:.4f}" for v in r["kbx_ms"]) + " | " + " ".join(f"{v:.4f}" for v in r["do_bench_ms"])
        if r.get("error"):
            line += f"  ERROR: {r['error']}"
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kbx", default="./kbx")
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", "tasks"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--ncu", action="store_true", help="add Nsight Compute's duration (needs ncu)")
    ap.add_argument("--out", help="write the results as JSON")
    ap.add_argument("--kbx-arg", action="append", default=[],
                    help="one more option for kbx run, e.g. --kbx-arg=--hide-latency (repeatable)")
    ap.add_argument("--ncu-driver", help=argparse.SUPPRESS)
    ap.add_argument("--cubin", help=argparse.SUPPRESS)
    ap.add_argument("--ncu-iters", type=int, default=6, help=argparse.SUPPRESS)
    a = ap.parse_args()
    KBX_EXTRA.extend(a.kbx_arg)
    if a.ncu_driver:
        return ncu_driver(a.ncu_driver, a.cubin, a.ncu_iters)

    cases = CASES
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {c["name"] for c in CASES}
        if unknown:
            ap.error(f"unknown case(s) {', '.join(sorted(unknown))}; cases: {', '.join(c['name'] for c in CASES)}")
        cases = [c for c in CASES if c["name"] in want]
    ncu = None
    if a.ncu:
        ncu = find_ncu()
        if not ncu:
            print("ncu: not found (neither on PATH nor /usr/local/cuda/bin/ncu); no ncu column", file=sys.stderr)
    tasks = os.path.abspath(a.tasks)
    meta = {"gpu": torch.cuda.get_device_name(), "sms": sms(), "torch": torch.__version__,
            "triton": triton.__version__, "cupy": cupy.__version__, "rounds": a.rounds,
            "tolerance_pct": TOLERANCE_PCT, "min_gated_ms": MIN_GATED_MS}
    print(f"# {meta['gpu']} ({meta['sms']} SMs); torch {meta['torch']}, triton {meta['triton']}, "
          f"cupy {meta['cupy']}; {a.rounds} rounds", flush=True)
    rows = []
    t_start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            t0 = time.time()
            cubin = os.path.join(tmp, c["name"] + ".cubin")
            src = os.path.join(tasks, c["src"])
            r = {"name": c["name"], "task": c["task"], "row": None, "input_size": c["input_size"],
                 "tiny": c["tiny"], "kernels": [], "kbx_ms": [], "kbx_n": [], "do_bench_ms": [], "do_bench_n": [],
                 "kbx_median": None, "do_bench_median": None, "diff_pct": None, "ncu_ms": None, "gate": "-",
                 "error": None}
            launches = None
            try:
                launches = c["make"]()
                r["kernels"] = [{"kernel": ln.kernel, "grid": ln.grid, "block": ln.block, "smem": ln.smem}
                                for ln in launches]
                for _ in range(a.rounds):
                    km, kn, krow = kbx_median(a.kbx, tasks, c["task"], src, cubin, c["row"], c["input_size"])
                    r["row"] = krow
                    r["kbx_ms"].append(km)
                    r["kbx_n"].append(kn)
                    bm, bn = bench_median(cubin, launches)
                    r["do_bench_ms"].append(bm)
                    r["do_bench_n"].append(bn)
                km, bm = statistics.median(r["kbx_ms"]), statistics.median(r["do_bench_ms"])
                r.update(kbx_median=km, do_bench_median=bm, diff_pct=100 * (km - bm) / bm)
                if c["tiny"] or bm < MIN_GATED_MS:
                    r["gate"] = "info"
                else:
                    r["gate"] = "ok" if abs(r["diff_pct"]) <= TOLERANCE_PCT else "FAIL"
                if ncu:
                    r["ncu_ms"], why = ncu_median(ncu, c, cubin, launches)
                    if why:
                        r["ncu_error"] = why
                        print(f"ncu, {c['name']}: {why}", file=sys.stderr, flush=True)
            except CaseError as e:
                r["error"] = str(e)
                r["gate"] = "ERROR"
            except Exception as e:  # a CUDA or CuPy error, out of memory: report it, go on with the next case
                r["error"] = f"{type(e).__name__}: {e}"
                r["gate"] = "ERROR"
            finally:
                launches = None
                try:
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                except Exception:  # a sticky CUDA error: the next cases will report it
                    pass
            r["seconds"] = round(time.time() - t0, 1)
            rows.append(r)
            print(f"# {c['name']}: {r['gate']}" + (f" ({r['diff_pct']:+.2f} %)" if r["diff_pct"] is not None else "")
                  + (f" {r['error']}" if r["error"] else "") + f" in {r['seconds']} s", flush=True)
            if a.out:
                with open(a.out, "w") as fh:
                    json.dump(dict(meta, rows=rows, seconds=round(time.time() - t_start, 1)), fh, indent=2)
    print_table(rows, bool(ncu))
    ok = all(r["gate"] in ("ok", "info") for r in rows)
    gated = [r for r in rows if r["gate"] in ("ok", "FAIL")]
    print(f"{sum(r['gate'] == 'ok' for r in gated)} of {len(gated)} kernels >= {MIN_GATED_MS * 1000:.0f} us within "
          f"{TOLERANCE_PCT:g} %; {sum(r['gate'] == 'ERROR' for r in rows)} errors; "
          f"{time.time() - t_start:.0f} s: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    # CuPy and PyTorch loaded together crash in the interpreter's teardown (a segmentation fault
    # on the H200, after the last case), taking the unflushed table and summary with them: flush,
    # then leave without the teardown.
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
