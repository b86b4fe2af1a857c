#!/usr/bin/env python3
"""Timing fidelity: kbx's median against triton.testing.do_bench's median for the same cubin.

usage: bench/timing_fidelity.py [--kbx PATH] [--rounds N] [--out FILE]

For each kernel in CASES, kbx times the candidate at the largest perf row (`kbx run TASK FILE
--rows 1 --json --save-cubin`), then this script loads the very cubin kbx compiled with CuPy and
times the same launch with triton.testing.do_bench (warmup 25 ms, rep 100 ms, median) on inputs
of the same size and distribution. Rounds alternate kbx and do_bench so that clock drift hits
both. Needs a GPU, PyTorch, Triton and CuPy.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import cupy
import torch
import triton


def cdiv(a, b):
    return (a + b - 1) // b


# task, candidate (relative to the tasks folder), kernel, function building (grid, block, args)
# from torch tensors for the largest perf row. Inputs follow the task's [perf] generators.
def gelu_launch():
    n = 2 ** 27
    x = torch.rand(n, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    grid = (max(1, cdiv(n, 4096)),)
    return grid, (256,), (x, y, cupy.int64(n), cupy.int32(0)), [x, y]


CASES = [
    ("Activation/gelu", "Activation/gelu/reference.cu", "gelu_f32", gelu_launch),
]


def kbx_median(kbx, task, src, cubin):
    out = subprocess.run([kbx, "run", task, src, "--rows", "1", "--json", "--no-history", "--save-cubin", cubin],
                         capture_output=True, text=True)
    doc = json.loads(out.stdout)
    if doc["verdict"] != "pass":
        raise SystemExit(f"{task}: kbx verdict {doc['verdict']}: {doc['summary']['message']}")
    row = doc["perf"][-1]
    return row["cand"]["median"], row["cand"]["n"]


def bench_median(cubin, kernel, make_launch):
    mod = cupy.RawModule(path=cubin)
    fn = mod.get_function(kernel)
    grid, block, args, keep = make_launch()
    raw = tuple(cupy.uint64(a.data_ptr()) if isinstance(a, torch.Tensor) else a for a in args)
    call = lambda: fn(grid, block, raw)
    call()
    torch.cuda.synchronize()
    ms = triton.testing.do_bench(call, warmup=25, rep=100, return_mode="median")
    del keep
    return ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", default="./kbx")
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", "tasks"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for task, rel, kernel, make_launch in CASES:
            cubin = os.path.join(tmp, kernel + ".cubin")
            src = os.path.join(a.tasks, rel)
            k, b = [], []
            for _ in range(a.rounds):
                k.append(kbx_median(a.kbx, task, src, cubin)[0])
                b.append(bench_median(cubin, kernel, make_launch))
            km, bm = statistics.median(k), statistics.median(b)
            rows.append({"task": task, "kernel": kernel, "kbx_ms": k, "do_bench_ms": b,
                         "kbx_median": km, "do_bench_median": bm, "diff_pct": 100 * (km - bm) / bm})
    print(f"{'task':28} {'kbx ms':>10} {'do_bench ms':>12} {'diff':>8}   rounds (kbx | do_bench)")
    for r in rows:
        print(f"{r['task']:28} {r['kbx_median']:10.5f} {r['do_bench_median']:12.5f} {r['diff_pct']:7.2f}%   "
              + " ".join(f"{v:.4f}" for v in r["kbx_ms"]) + " | " + " ".join(f"{v:.4f}" for v in r["do_bench_ms"]))
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"gpu": torch.cuda.get_device_name(), "triton": triton.__version__, "rows": rows}, fh, indent=2)
    return 0 if all(abs(r["diff_pct"]) <= 5 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
