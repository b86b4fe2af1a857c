#!/usr/bin/env python3
"""The golden sweep: KernelBenchX's PyTorch functions timed on their own perf workloads, as its
golden timings were taken, to set next to a kbx evaluation of the same tasks on the same GPU
(bench/eval_real.sh, issue 20).

usage: bench/golden_sweep.py --kernelbenchx DIR [--only Cat/name,...] [--warmup MS] [--rep MS]
                             [--gpus 0,1,...] [--out FILE] [--list]

DIR is a KernelBenchX tree: DIR/tasks/<Category>/<name>.py (the PyTorch function above the line
of '#' that starts its test code) and DIR/perf/<name>_perf.py (the perf workload: a
`performance_metrics` class with get_input_tensors, to_cuda and call_op, on performance_utils.py
beside it). For each task: the function is loaded without its test code (as the package
`kernelbenchx.<Category>.<name>` that the perf scripts import), the workload's inputs are made
directly on the GPU (its factories run under torch.device("cuda"): the host would be the slow
part), and every input is timed by triton.testing.do_bench(warmup, rep) (25 and 100 ms by
default), median. One line per task as it ends (rows, seconds); then the wall time, per
category and in all. --list prints the tasks it would time without torch.

--gpus 0,1,... deals the tasks round-robin to one sweep per GPU (each a child process with
CUDA_VISIBLE_DEVICES set to its GPU), all at once, as `kbx eval --gpus` deals its items: the wall
time is the parallel phase's. A GPU whose sweep dies leaves its tasks with that as their error.

--out FILE writes {"wall_s", "tasks": {"Cat/name": {"seconds", "rows": [ms, ...], "error"}}}.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import types


def find_tasks(root, only):
    """[(Category/name, task file, perf file)] with both files, sorted; `only` filters."""
    found = []
    tasks = os.path.join(root, "tasks")
    for cat in sorted(os.listdir(tasks)):
        d = os.path.join(tasks, cat)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".py"):
                continue
            name = f[:-3]
            tid = f"{cat}/{name}"
            perf = os.path.join(root, "perf", f"{name}_perf.py")
            if only and tid not in only and name not in only:
                continue
            if os.path.exists(perf):
                found.append((tid, os.path.join(d, f), perf))
    return found


def function_source(path):
    """The task file above the line of '#' where its test code starts."""
    lines = []
    with open(path) as fh:
        for line in fh:
            s = line.strip()
            if len(s) >= 20 and set(s) == {"#"}:
                break
            lines.append(line)
    return "".join(lines)


def register(tid, path):
    """Make `kernelbenchx.<Category>.<name>` importable, holding the function only."""
    cat, name = tid.split("/")
    pkg = sys.modules.setdefault("kernelbenchx", types.ModuleType("kernelbenchx"))
    pkg.__path__ = []
    sub_name = f"kernelbenchx.{cat}"
    sub = sys.modules.setdefault(sub_name, types.ModuleType(sub_name))
    sub.__path__ = []
    setattr(pkg, cat, sub)
    mod = types.ModuleType(f"{sub_name}.{name}")
    mod.__file__ = path
    exec(compile(function_source(path), path, "exec"), mod.__dict__)
    sys.modules[mod.__name__] = mod
    setattr(sub, name, mod)


def load_perf(path):
    spec = importlib.util.spec_from_file_location("kbx_golden_" + os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def time_task(torch, triton, tid, task_file, perf_file, warmup, rep):
    register(tid, task_file)
    mod = load_perf(perf_file)
    bench = mod.performance_metrics()
    with torch.device("cuda"):
        bench.get_input_tensors()
    rows = []
    for inp in bench.input_tensors:
        x = bench.to_cuda(inp)
        rows.append(triton.testing.do_bench(lambda: bench.call_op(x), warmup=warmup, rep=rep,
                                            return_mode="median"))
        del x
    bench.input_tensors = []
    return rows


def sweep_on_gpus(args, tasks, gpus):
    """One child sweep per GPU on every len(gpus)-th task, at once; their results merged."""
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        children = []
        for k, g in enumerate(gpus):
            mine = [tid for tid, _, _ in tasks[k::len(gpus)]]
            if not mine:
                continue
            out = os.path.join(tmp, f"gpu{k}.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--kernelbenchx", args.kernelbenchx,
                   "--only", ",".join(mine), "--warmup", str(args.warmup), "--rep", str(args.rep), "--out", out]
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=g)
            err = open(os.path.join(tmp, f"gpu{k}.err"), "w+")
            children.append((g, mine, out, err, subprocess.Popen(cmd, env=env, stderr=err)))
        result = {}
        for g, mine, out, err, proc in children:
            rc = proc.wait()
            got = {}
            if os.path.exists(out):
                with open(out) as fh:
                    got = json.load(fh)["tasks"]
            err.seek(0)
            last = (err.read().strip().splitlines() or [f"exit status {rc}"])[-1]
            err.close()
            for tid in mine:
                result[tid] = got.get(tid) or {"rows": [], "seconds": 0.0,
                                               "error": f"the sweep on GPU {g} ended without it: {last[:200]}"}
    report(args, result, time.time() - start, f" on {len(gpus)} GPUs", {"gpus": gpus})
    return 0 if len(result) == len(tasks) else 1


def report(args, result, wall, where="", more=None):
    """The summary line, and --out's file."""
    failed = sum(1 for e in result.values() if e["error"])
    print(f"golden sweep: {len(result)} tasks ({failed} failed){where} in {wall:.1f} s")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"wall_s": wall, "warmup_ms": args.warmup, "rep_ms": args.rep, **(more or {}), "tasks": result},
                      fh, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernelbenchx", required=True)
    ap.add_argument("--only", help="Cat/name or name, comma-separated")
    ap.add_argument("--warmup", type=float, default=25)
    ap.add_argument("--rep", type=float, default=100)
    ap.add_argument("--gpus", help="GPU ordinals, comma-separated: one sweep on each, at once")
    ap.add_argument("--out")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    tasks = find_tasks(args.kernelbenchx, only)
    if args.list:
        for tid, _, _ in tasks:
            print(tid)
        print(f"{len(tasks)} tasks")
        return 0
    if args.gpus:
        gpus = args.gpus.split(",")
        if not all(g.isdigit() for g in gpus) or len(set(gpus)) != len(gpus):
            ap.error(f"--gpus {args.gpus}: expected distinct GPU ordinals such as 0,1")
        return sweep_on_gpus(args, tasks, gpus)
    import torch
    import triton
    import triton.testing
    sys.path.insert(0, os.path.join(args.kernelbenchx, "perf"))
    result, per_cat = {}, {}
    start = time.time()
    for tid, task_file, perf_file in tasks:
        t0 = time.time()
        entry = {"rows": [], "error": None}
        try:
            entry["rows"] = time_task(torch, triton, tid, task_file, perf_file, args.warmup, args.rep)
        except Exception as e:  # a workload that fails is reported, the sweep goes on
            entry["error"] = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        entry["seconds"] = time.time() - t0
        result[tid] = entry
        cat = tid.split("/")[0]
        per_cat[cat] = per_cat.get(cat, 0.0) + entry["seconds"]
        print(f"{tid:55s} {len(entry['rows']):3d} rows {entry['seconds']:7.1f} s"
              + (f"  {entry['error']}" if entry["error"] else ""), flush=True)
    wall = time.time() - start
    for cat in sorted(per_cat):
        print(f"category {cat:20s} {per_cat[cat]:8.1f} s")
    report(args, result, wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
