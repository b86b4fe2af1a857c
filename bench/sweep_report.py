#!/usr/bin/env python3
"""Report of a sweep (bench/sweep.sh): wall time and where it went, and the references' quality.

usage: bench/sweep_report.py EVAL_DIR [EVAL_DIR ...] [--wall SECONDS] [--json FILE]

Several EVAL_DIRs (the shards of one sweep, run one after the other on the same GPU) are
joined; --wall is then the sum of their wall times. Reference quality, over the items that
passed and were timed against a golden table: the geometric mean of golden_ms / reference_ms
(target >= 0.8), the ten slowest references against PyTorch, and, for memory-bound references
(arithmetic intensity below the device's balance of FMA peak over copy bandwidth, or below 4
flop/byte without a calibration), their bandwidth at the largest perf row as a share of the
calibrated copy bandwidth (target >= 85 %).
"""
import argparse
import json
import math
import os
import sys

BUDGET = 0.6 * 1104  # KernelBenchX's golden sweep of the same workloads on an H200: 1104 s


def load(dirs):
    """The items of each evaluation: metrics.json, or, for one cut short, progress.jsonl."""
    items = []
    for d in dirs:
        metrics = os.path.join(d, "metrics.json")
        if os.path.exists(metrics):
            with open(metrics) as f:
                items += json.load(f)["items"]
            continue
        print(f"{d}: no metrics.json (cut short?); reading progress.jsonl")
        with open(os.path.join(d, "progress.jsonl")) as f:
            for line in f:
                try:
                    items.append(json.loads(line))
                except ValueError:
                    pass  # a torn last line
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--wall", type=float, action="append", default=[],
                    help="wall seconds of the evaluation (once per EVAL_DIR, summed)")
    ap.add_argument("--json", help="write the figures here too")
    args = ap.parse_args()
    items = load(args.dirs)
    n = len(items)
    passed = [i for i in items if i.get("exe")]
    rep = {"items": n, "pass": len(passed)}
    split = {k: sum(i.get(k) or 0 for i in items) for k in ("compile_s", "inputs_s", "verify_s", "timing_s")}
    verify_parts = {k: sum(i.get(k) or 0 for i in items) for k in ("device_s", "launch_s", "transfer_s")}
    item_s = sum(i.get("seconds") or 0 for i in items)
    rep.update(split)
    rep["item_seconds"] = item_s
    print(f"items {n}, exe pass {len(passed)}")
    if args.wall:
        wall = sum(args.wall)
        rep["wall_s"] = wall
        whole = len(passed) == n and all(i.get("perf") for i in items)
        verdict = ("met" if wall < BUDGET else "NOT met") if whole else "not judged: not every item passed and was timed"
        print(f"wall {wall:.1f} s (target < {BUDGET:.0f} s = 0.6 x 1104 s): {verdict}")
    other = item_s - sum(split.values())
    print("split of the items' seconds ({:.1f} s): compile {compile_s:.1f}, inputs {inputs_s:.1f}, "
          "verify {verify_s:.1f}, timing {timing_s:.1f}, worker start and recording {o:.1f}".format(
              item_s, o=other, **split))
    print("  verify's parts: opening the device {device_s:.1f}, synchronised launches {launch_s:.1f}, "
          "copies to and from the GPU {transfer_s:.1f}, "
          "host checks and the rest {r:.1f}".format(r=split["verify_s"] - sum(verify_parts.values()), **verify_parts))
    rep.update(verify_parts)
    slow = sorted(items, key=lambda i: -(i.get("seconds") or 0))[:10]
    print("  the ten longest items: " + ", ".join(f"{i.get('task')} {i.get('seconds', 0):.1f} s" for i in slow))
    fails = [i for i in items if not i.get("exe")]
    for i in fails[:30]:
        print(f"  NOT PASS {i.get('task')}: {i.get('verdict')}: {(i.get('message') or '')[:200]}")
    slowest = sorted(((i["golden_ms"] / i["ms"], i) for i in passed
                      if i.get("golden_ms") and i.get("ms")), key=lambda x: x[0])
    if slowest:
        geo = math.exp(sum(math.log(s) for s, _ in slowest) / len(slowest))
        rep["geomean_golden_over_ref"] = geo
        rep["timed_vs_golden"] = len(slowest)
        print(f"reference quality: geomean golden_ms / reference_ms = {geo:.3f} over {len(slowest)} tasks "
              f"(target >= 0.8): {'met' if geo >= 0.8 else 'NOT met'}")
        print("ten slowest references against PyTorch (golden / reference, sums over the rows):")
        for s, i in slowest[:10]:
            print(f"  {s:8.3f}  {i['task']:50s} ref {i['ms']:.4g} ms, golden {i['golden_ms']:.4g} ms")
        rep["slowest"] = [{"task": i["task"], "ratio": s, "ms": i["ms"], "golden_ms": i["golden_ms"]}
                          for s, i in slowest[:10]]
    mem = []
    for i in passed:
        gbps, tflops, frac = i.get("gbps"), i.get("tflops"), i.get("bw_fraction")
        if not gbps or gbps <= 0:
            continue
        intensity = (tflops or 0) * 1e12 / (gbps * 1e9)
        if intensity < 4:
            mem.append((frac, gbps, intensity, i["task"]))
    if mem:
        with_frac = [m for m in mem if m[0]]
        print(f"memory-bound references (intensity < 4 flop/byte): {len(mem)}; "
              f"with a calibration: {len(with_frac)}")
        if with_frac:
            ok = [m for m in with_frac if m[0] >= 0.85]
            rep["memory_bound"] = len(with_frac)
            rep["memory_bound_at_85"] = len(ok)
            print(f"  at >= 85 % of the calibrated copy bandwidth: {len(ok)} of {len(with_frac)}; lowest:")
            for frac, gbps, inten, task in sorted(with_frac)[:15]:
                print(f"  {100 * frac:6.1f} %  {gbps:8.1f} GB/s  {task}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rep, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
