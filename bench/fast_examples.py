#!/usr/bin/env python3
"""Time every faster candidate reference (examples/pass_fast_*.cu) against its task's reference.

usage: bench/fast_examples.py --kbx PATH [--tasks DIR] [--out DIR] [--timeout S] [--only SUBSTR ...]

For each examples/pass_fast_*.cu, `kbx run TASK FILE --json --no-history` verifies it on every
case and times it and the reference on every perf row in one run (the same GPU, the same
minutes). Prints one line per example: its verdict, the sums over the rows with golden timings of
golden / reference and golden / candidate (the sweep's reference-quality measure), and the
candidate's speed over the reference's summed over all rows. An example that passes and is
faster is a candidate for tools/swap_reference.py (after the PyTorch cross-check; a Fusion one
with --stages). Each run's JSON goes to OUT/<Category>_<name>__<example>.json; a run that times
out is reported as such (a slow former reference at its largest rows is the usual cause: raise
--timeout). Needs a GPU.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time


def sums(perf):
    """(golden, ref, cand) summed over the rows that have all three, and (ref, cand) over all."""
    g = r = c = ra = ca = 0.0
    for p in perf:
        rm = (p.get("ref") or {}).get("median")
        cm = (p.get("cand") or {}).get("median")
        if rm is None or cm is None:
            continue
        ra += rm
        ca += cm
        gm = p.get("golden_ms")
        if gm is not None and gm > 0:
            g += gm
            r += rm
            c += cm
    return g, r, c, ra, ca


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kbx", required=True)
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", "tasks"))
    ap.add_argument("--out", default="fast_examples")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per example")
    ap.add_argument("--only", nargs="*", help="keep examples whose path contains one of these")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    files = sorted(glob.glob(os.path.join(a.tasks, "*", "*", "examples", "pass_fast_*.cu")))
    if a.only:
        files = [f for f in files if any(s in f for s in a.only)]
    if not files:
        print("no examples/pass_fast_*.cu found", file=sys.stderr)
        return 2
    env = dict(os.environ, KBX_TASKS=a.tasks)
    print(f"{'task':48s} {'example':36s} {'verdict':9s} {'g/ref':>7s} {'g/cand':>7s} {'speedup':>8s} {'s':>6s}")
    for f in files:
        parts = f.split(os.sep)
        task = f"{parts[-4]}/{parts[-3]}"
        ex = os.path.basename(f)[:-3]
        dest = os.path.join(a.out, f"{task.replace('/', '_')}__{ex}.json")
        t0 = time.time()
        try:
            out = subprocess.run([a.kbx, "run", task, f, "--json", "--no-history"], capture_output=True, text=True,
                                 timeout=a.timeout, env=env)
        except subprocess.TimeoutExpired:
            print(f"{task:48s} {ex:36s} {'timeout':9s} {'':>7s} {'':>7s} {'':>8s} {time.time() - t0:6.0f}", flush=True)
            continue
        with open(dest, "w") as fh:
            fh.write(out.stdout)
        try:
            d = json.loads(out.stdout)
        except ValueError:
            why = (out.stderr.strip().splitlines() or ["no output"])[-1][:80]
            print(f"{task:48s} {ex:36s} {'error':9s} {why}", flush=True)
            continue
        g, r, c, ra, ca = sums(d.get("perf") or [])
        gr = f"{g / r:7.3f}" if g and r else f"{'-':>7s}"
        gc = f"{g / c:7.3f}" if g and c else f"{'-':>7s}"
        sp = f"{ra / ca:7.2f}x" if ra and ca else f"{'-':>8s}"
        print(f"{task:48s} {ex:36s} {d.get('verdict', '?'):9s} {gr} {gc} {sp} {time.time() - t0:6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
