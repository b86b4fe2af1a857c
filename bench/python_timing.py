#!/usr/bin/env python3
"""Timing of Python/Triton candidates: kbx's median against triton.testing.do_bench's on the same
function and the same inputs, and the Python path's per-item overhead in an evaluation.

usage: bench/python_timing.py [--kbx PATH] [--tasks DIR] [--rounds N] [--rows K] [--only NAME,...]
                              [--overhead] [--out FILE]

For each correct candidate of tests/triton/ (`# @kbx expect pass`), per round:
  kbx      `kbx run TASK FILE --rows K --json --no-history`: the medians of its last K perf rows
           (the worker calls the entry function through the task's crosscheck.py on kbx's inputs)
  do_bench the same perf rows' inputs (`kbx export TASK --perf-row N`: kbx's generator, same
           seed), the same entry function called the same way, timed by
           triton.testing.do_bench(warmup=25, rep=100), median
Rounds alternate the two so that clock drift hits both; the table gives the median over rounds.
Rows are numbered from 1, as kbx's perf table and `kbx export --perf-row` number them.
Pass: every row whose do_bench median is at least 20 us is within 3 % (rows under 20 us are
reported only: a Python call's own cost is a larger share there, for both methods). A candidate
that puts its work on a stream of its own (gelu_side_stream.py) shows do_bench's blind spot:
do_bench times only the stream it records on, kbx joins the other streams into its timing.

With --overhead: `kbx eval` of a predictions.jsonl holding every correct candidate twice (one
kept worker serves them all) with --no-perf; the per-item wall time minus the
item's own compile/verify GPU time (its split) is the Python path's overhead, printed per item
and as a median. Needs a GPU, PyTorch and Triton.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import torch
import triton
import triton.testing

TOLERANCE_PCT = 3.0
MIN_GATED_MS = 0.020

def cases(cands):
    """(task, file) of every candidate in `cands` whose header says `# @kbx expect pass`."""
    found = []
    for fname in sorted(os.listdir(cands)):
        if not fname.endswith(".py"):
            continue
        head = dict()
        with open(os.path.join(cands, fname)) as fh:
            for line in fh:
                if not line.startswith("# @kbx "):
                    if head:
                        break
                    continue
                key, _, value = line[7:].strip().partition(" ")
                head[key] = value.strip()
        if head.get("expect") == "pass" and "task" in head:
            found.append((head["task"], fname))
    return found


def load_module(path):
    spec = importlib.util.spec_from_file_location("cand_" + os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ini_section(task_dir, want):
    """[(key, value)] of section [want] of the task's task.ini, comments dropped, in order."""
    pairs, section = [], None
    with open(os.path.join(task_dir, "task.ini")) as fh:
        for line in fh:
            s = line.split(";", 1)[0].strip()
            if s.startswith("["):
                section = s[1:-1]
            elif section == want and "=" in s:
                key, value = (x.strip() for x in s.split("=", 1))
                pairs.append((key, value))
    return pairs


def load_call(task_dir):
    """The call the worker makes: the task's crosscheck.py, or (without one) the entry function
    on the in/inout buffers of [args] in order (python/kbxpy/tasks.py)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from kbxpy import tasks
    call = tasks.load_call(task_dir)
    if call is not tasks.default_call:
        return call
    args = [{"name": k, "dir": v.split()[0]} for k, v in ini_section(task_dir, "args")]
    return tasks.DefaultCall().arrange(args)


def entry_of(task_dir, mod):
    """The entry function: task.ini's [python] entry, else the module's last public function."""
    name = next((v for k, v in ini_section(task_dir, "python") if k == "entry"), None)
    if name and hasattr(mod, name):
        return getattr(mod, name)
    fns = [v for k, v in vars(mod).items() if callable(v) and not k.startswith("_") and
           getattr(v, "__module__", None) == mod.__name__]
    return fns[-1]


def kbx_medians(args, task, path, rows):
    out = subprocess.run([args.kbx, "run", task, path, "--rows", str(rows), "--no-derived", "--json", "--no-history"],
                         capture_output=True, text=True, timeout=args.timeout)
    try:
        doc = json.loads(out.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"kbx run {task} {path}: no JSON ({out.stderr.strip()[-300:]})")
    if doc.get("verdict") != "pass":
        raise RuntimeError(f"kbx run {task} {path}: {doc.get('verdict')}: {doc.get('summary', {}).get('message')}")
    return {p["row"]: p["cand"]["median"] for p in doc.get("perf", [])}


def row_inputs(args, task, row, tmp):
    """a for crosscheck.call: kbx's inputs of perf row `row` (1-based), on the GPU; None when the
    row's inputs are over --max-bytes (kbx export exits 3)."""
    d = os.path.join(tmp, f"r{row}")
    out = subprocess.run([args.kbx, "export", task, "--dir", d, "--perf-row", str(row), "--max-bytes",
                          str(args.max_bytes)], capture_output=True, text=True, timeout=args.timeout)
    if out.returncode == 3:
        return None
    if out.returncode != 0:
        raise RuntimeError(f"kbx export {task} --perf-row {row}: {out.stderr.strip()[-300:]}")
    sub = os.path.join(d, f"perf{row}")
    with open(os.path.join(sub, "manifest.json")) as fh:
        m = json.load(fh)
    a = dict(m["bindings"])
    for arg in m["args"]:
        f = arg["files"].get("input")
        if f:
            t = torch.from_numpy(np.load(os.path.join(sub, f))).cuda()
            a[arg["name"]] = t.to(torch.bfloat16) if arg["dtype"] == "bf16" else t
    return a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", default="./kbx")
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", "tasks"))
    ap.add_argument("--cands", default="tests/triton")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=2, help="the last K perf rows of each task")
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--max-bytes", type=float, default=4e9)
    ap.add_argument("--overhead", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    table, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for task, fname in cases(args.cands):
            if only and task not in only and task.split("/")[1] not in only:
                continue
            path = os.path.join(args.cands, fname)
            if not os.path.exists(path):
                print(f"skip {task}: no {path}")
                continue
            tdir = os.path.join(args.tasks, task)
            try:
                fn = entry_of(tdir, load_module(path))
                call = load_call(tdir)
                kb, db = {}, {}
                inputs = {}
                for _ in range(args.rounds):
                    for row, ms in kbx_medians(args, task, path, args.rows).items():
                        if row not in inputs:
                            # the JSON's rows count from 0, `kbx export --perf-row` from 1
                            inputs[row] = row_inputs(args, task, row + 1, tmp)
                            if inputs[row] is None:
                                print(f"skip {task} row {row + 1}: inputs over --max-bytes {args.max_bytes:.3g}")
                        a = inputs[row]
                        if a is None:
                            continue
                        kb.setdefault(row, []).append(ms)
                        db.setdefault(row, []).append(triton.testing.do_bench(lambda: call(fn, a, torch),
                                                                               warmup=25, rep=100))
            except Exception as e:  # a candidate that cannot be measured fails the bench
                print(f"FAIL {task}: {type(e).__name__}: {e}")
                ok = False
                continue
            for row in sorted(kb):
                k, d = statistics.median(kb[row]), statistics.median(db[row])
                pct = 100.0 * (k - d) / d if d > 0 else float("inf")
                gated = d >= MIN_GATED_MS
                passed = (not gated) or abs(pct) <= TOLERANCE_PCT
                ok &= passed
                table.append({"task": task, "file": fname, "row": row + 1, "kbx_ms": k, "do_bench_ms": d,
                              "diff_pct": pct, "gated": gated, "pass": passed})
                print(f"{'ok  ' if passed else 'FAIL'} {task:28s} {fname:26s} row {row + 1:3d}  kbx {k:9.4f} ms  "
                      f"do_bench {d:9.4f} ms  {pct:+6.2f}%{'' if gated else '  (under 20 us: reported only)'}")
        if args.overhead:
            overhead(args, only, tmp)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(table, fh, indent=1)
    return 0 if ok else 1


def overhead(args, only, tmp):
    """Per-item overhead of the Python path in an evaluation (kbx eval, one kept worker)."""
    pred = os.path.join(tmp, "pred.jsonl")
    with open(pred, "w") as fh:
        for task, fname in cases(args.cands) * 2:
            path = os.path.join(args.cands, fname)
            if os.path.exists(path) and not (only and task not in only):
                fh.write(json.dumps({"file": task + ".py", "predict": open(path).read()}) + "\n")
    out = os.path.join(tmp, "ev")
    subprocess.run([args.kbx, "eval", pred, "--out", out, "--no-perf", "--quiet"], timeout=args.timeout * 4)
    rows = [json.loads(line) for line in open(os.path.join(out, "progress.jsonl"))]
    extra = []
    for r in rows:
        # progress.jsonl carries the split at the top level (compile_s, inputs_s, verify_s, timing_s)
        busy = sum(r.get(k) or 0 for k in ("compile_s", "inputs_s", "verify_s", "timing_s"))
        extra.append(r.get("seconds", 0) - busy)
        print(f"item {r.get('id')}: {r.get('verdict')}, {r.get('seconds', 0):.2f} s, of which outside the "
              f"engine's split {extra[-1]:.2f} s")
    if extra:
        print(f"Python path overhead per item (median, first item's torch import included once): "
              f"{statistics.median(extra):.3f} s; first item {extra[0]:.2f} s")


if __name__ == "__main__":
    sys.exit(main())
