#!/bin/sh
# A real evaluation (issue 20): one passing candidate per task through `kbx eval` with its default
# timing, next to the golden sweep of the same tasks (bench/golden_sweep.py: KernelBenchX's PyTorch
# functions on its perf workloads, do_bench 25/100 ms, inputs made on the GPU) on the same GPU in
# the same call. Writes OUT/pred.jsonl, OUT/eval/ (metrics.json, summary.json), OUT/golden.json and
# OUT/report.txt: both wall times and their ratio, the evaluation's split (compile, inputs, verify,
# timing), and seconds per category for both.
# usage: bench/eval_real.sh KBX KERNELBENCHX_DIR OUT [kbx eval options]
# Environment:
#   PICK=example (default): each task's first `// @kbx expect pass` example, by name (often its
#     plainest kernel: a former reference that a faster one replaced); PICK=fast: a passing
#     `pass_fast_*` example where the task has one (the faster kernels that passed every case
#     but stayed examples, doc/timing.md), else the first passing one; PICK=reference: the task's
#     reference submitted as a candidate, with a comment line put before it so that its compiled
#     image differs (-lineinfo): it is then checked at every case and perf row and timed as any
#     candidate, at the reference's speed (kbx's own cost next to PyTorch-like kernels; a launch
#     the reference marks untimed is timed in the stand-in, as in any candidate)
#   SHARD=I/N: the tasks whose place in the sorted list is I modulo N (kbx eval --shard's rule), for
#     the evaluation and the golden sweep alike (do not pass --shard among the options)
#   ONLY="Cat/name ...": only these tasks (e.g. those a change touched), for both alike; with SHARD,
#     the shard of these
#   KBX_TASKS (default ./tasks), LD_LIBRARY_PATH for a carried binary; GOLDEN=0 skips the golden
#   sweep; GOLDEN_GPUS=0,1,... spreads it over those GPUs, as `--gpus 0,1,...` among the options
#   spreads kbx eval's items (compare like with like).
#   KBX_DB (default OUT/history.db): the history whose kept reference timings the evaluation may
#   use (doc/timing.md); point it at a sweep's (bench/sweep.sh OUT/history.db) to reuse those.
set -eu
kbx=$1
kbx_dir=$2
out=$3
shift 3
tasks=${KBX_TASKS:-$PWD/tasks}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
case " $* " in *" --shard "*) echo "eval_real: use SHARD=I/N, not --shard (the golden sweep must run the same tasks)" >&2; exit 2 ;; esac
python3 - "$tasks" "$out/pred.jsonl" "$out/tasks.txt" "${PICK:-example}" "${SHARD:-0/1}" "${ONLY:-}" <<'PY'
import json, os, sys
root, dest, ids, pick, shard, only = sys.argv[1:]
try:
    index, count = (int(v) for v in shard.split("/"))
except ValueError:
    index, count = -1, 0
if pick not in ("example", "fast", "reference") or not 0 <= index < count:
    sys.exit(f"eval_real: PICK must be example, fast or reference, SHARD I/N with 0 <= I < N (got {pick}, {shard})")
STAND_IN = "// bench/eval_real.sh: the task's reference, submitted as a candidate\n"
tasks = []
for cat in sorted(os.listdir(root)):
    d = os.path.join(root, cat)
    if not os.path.isdir(d) or cat in ("include", "golden"):
        continue
    tasks += [(cat, name) for name in sorted(os.listdir(d)) if os.path.isdir(os.path.join(d, name))]
if only.split():
    wanted = set(only.split())
    unknown = wanted - {f"{c}/{n}" for c, n in tasks}
    if unknown:
        sys.exit(f"eval_real: ONLY names no task of {root}: {' '.join(sorted(unknown))}")
    tasks = [(c, n) for c, n in tasks if f"{c}/{n}" in wanted]
n = missing = 0
with open(dest, "w") as f, open(ids, "w") as t:
    for k, (cat, name) in enumerate(tasks):
        if k % count != index:
            continue
        first = None
        if pick == "reference":
            first = os.path.join(root, cat, name, "reference.cu")
            first = first if os.path.isfile(first) else None
        else:
            ex = os.path.join(root, cat, name, "examples")
            passing = []
            for e in sorted(os.listdir(ex)) if os.path.isdir(ex) else []:
                with open(os.path.join(ex, e), errors="replace") as fh:
                    if fh.readline().strip() == "// @kbx expect pass":
                        passing.append(e)
            if pick == "fast":
                passing.sort(key=lambda e: not e.startswith("pass_fast_"))  # stable: by name within
            first = os.path.join(ex, passing[0]) if passing else None
        if not first:
            missing += 1
            print(f"eval_real: {cat}/{name} has no passing {pick}")
            continue
        text = open(first).read()
        if pick == "reference":
            # a reference may launch an untimed kernel (an exact result it is also judged
            # against); a candidate may not, so the stand-in's every launch is timed
            text = STAND_IN + "\n".join(l.rstrip()[: -len(" untimed")] if l.startswith("// @kbx launch")
                                        and l.rstrip().endswith(" untimed") else l
                                        for l in text.split("\n"))
        f.write(json.dumps({"file": f"{cat}/{name}.py", "predict": text}) + "\n")
        t.write(f"{cat}/{name}\n")
        n += 1
print(f"eval_real: {n} tasks (shard {shard}) with a passing {pick}, {missing} without")
PY
start=$(date +%s.%N)
KBX_TASKS=$tasks KBX_DB=${KBX_DB:-$out/history.db} "$kbx" eval "$out/pred.jsonl" --out "$out/eval" --quiet "$@" \
	>"$out/eval.txt" 2>&1 || true
end=$(date +%s.%N)
eval_wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$end")
echo "eval_real: kbx eval in $eval_wall s"
if [ "${GOLDEN:-1}" = 1 ]; then
	python3 "$here/golden_sweep.py" --kernelbenchx "$kbx_dir" --only "$(paste -sd, "$out/tasks.txt")" \
		${GOLDEN_GPUS:+--gpus "$GOLDEN_GPUS"} --out "$out/golden.json" >"$out/golden.txt" 2>&1 || true
	tail -n 1 "$out/golden.txt"
fi
python3 - "$out" "$eval_wall" <<'PY' | tee "$out/report.txt"
import json, os, sys
out, wall = sys.argv[1], float(sys.argv[2])
items = []
m = os.path.join(out, "eval", "metrics.json")
if os.path.exists(m):
    items = json.load(open(m))["items"]
else:
    p = os.path.join(out, "eval", "progress.jsonl")
    for line in open(p) if os.path.exists(p) else []:
        try:
            items.append(json.loads(line))
        except ValueError:
            pass
passed = sum(1 for i in items if i.get("exe"))
print(f"kbx eval: {len(items)} items, {passed} pass, wall {wall:.1f} s")
split = {k: sum(i.get(k) or 0 for i in items) for k in ("compile_s", "inputs_s", "verify_s", "timing_s")}
print("split: " + ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in split.items()))
# verify's parts, and what lies outside the worker's split (the worker process's start, recording)
parts = {k: sum(i.get(k) or 0 for i in items) for k in ("device_s", "launch_s", "transfer_s")}
outside = sum(i.get("seconds") or 0 for i in items) - sum(split.values())
print(f"verify's parts: opening the device {parts['device_s']:.1f} s (driver, cuInit, context: in every "
      f"fresh worker), synchronised launches {parts['launch_s']:.1f} s, copies "
      f"{parts['transfer_s']:.1f} s; outside the split (worker start, recording) {outside:.1f} s")
# where the wall time went outside the items: before the first, between them, after the last
starts = [(i["started"], i.get("seconds") or 0) for i in items if i.get("started") is not None]
if starts:
    first = min(s for s, _ in starts)
    last = max(s + d for s, d in starts)
    busy = sum(d for _, d in starts)
    print(f"items: first began at {first:.1f} s, last ended at {last:.1f} s; their seconds sum to "
          f"{busy:.1f} s, so {max(0.0, last - first - busy):.1f} s between items and "
          f"{max(0.0, wall - last):.1f} s after the last (start-up, reports)")
    slow = sorted(items, key=lambda i: -(i.get("seconds") or 0))[:5]
    print("slowest items: " + ", ".join(f"{i.get('task') or i.get('id')} {i.get('seconds') or 0:.1f} s" for i in slow))
# Timing follows do_bench, whose cost per row is fixed (25 + 100 ms) until one call takes longer
# than about 15 ms: a candidate far slower than PyTorch costs its own seconds there, which the golden
# sweep (PyTorch) does not pay. Show how much of the wall those candidates take.
slow = [i for i in items if (i.get("ms") or 0) > 0 and (i.get("golden_ms") or 0) > 0 and i["ms"] > 5 * i["golden_ms"]]
if slow:
    print(f"candidates over 5x golden PyTorch's time (summed over rows): {len(slow)} items, "
          f"{sum(i.get('seconds') or 0 for i in slow):.1f} s of the items' seconds "
          f"(timing {sum(i.get('timing_s') or 0 for i in slow):.1f} s): "
          + ", ".join(f"{i.get('task')} {i['ms'] / i['golden_ms']:.0f}x" for i in sorted(slow, key=lambda i: -(i.get('seconds') or 0))[:8]))
kept = sum(i.get("ref_kept_rows") or 0 for i in items)
print(f"reference timings kept from earlier runs (doc/timing.md): {kept} perf rows "
      f"in {sum(1 for i in items if i.get('ref_kept_rows'))} items")
kept = sum(i.get("ref_outputs_kept") or 0 for i in items)
print(f"reference outputs kept from earlier runs (doc/timing.md): {kept} perf-row checks "
      f"in {sum(1 for i in items if i.get('ref_outputs_kept'))} items")
failed = [i for i in items if not i.get("exe")]
for i in failed[:40]:
    print(f"  not passed: {i.get('task') or i.get('file') or i.get('id')}: {i.get('verdict')} "
          f"{str(i.get('message', ''))[:160]}")
if len(failed) > 40:
    print(f"  ... and {len(failed) - 40} more")
cat_eval = {}
for i in items:
    cat = str(i.get("task") or i.get("file") or "?").split("/")[0]
    cat_eval[cat] = cat_eval.get(cat, 0.0) + (i.get("seconds") or 0)
g = os.path.join(out, "golden.json")
golden = json.load(open(g)) if os.path.exists(g) else None
cat_gold = {}
if golden:
    for tid, e in golden["tasks"].items():
        cat_gold[tid.split("/")[0]] = cat_gold.get(tid.split("/")[0], 0.0) + e["seconds"]
    bad = [t for t, e in golden["tasks"].items() if e.get("error")]
    print(f"golden sweep: {len(golden['tasks'])} tasks, wall {golden['wall_s']:.1f} s"
          + (f" ({len(bad)} failed: {', '.join(bad[:5])})" if bad else ""))
    print(f"ratio: kbx eval / golden sweep = {wall / golden['wall_s']:.2f}")
    # kbx's own cost apart from the candidates' speed and the kept timings: the items' seconds
    # against the golden sweep's seconds for the same tasks, by class of item (passed items whose
    # task the golden sweep timed; "near PyTorch": the candidate's ms, summed over rows, within 2x)
    gold = golden["tasks"]
    timed = [i for i in items if i.get("exe") and i.get("task") in gold and not gold[i["task"]].get("error")]
    near = [i for i in timed if 0 < (i.get("ms") or 0) <= 2 * (i.get("golden_ms") or 0)]
    rows = lambda i: len(gold[i["task"]].get("rows") or [])
    for name, sel in (("passed, timed by both", timed), ("near PyTorch", near),
                      ("near PyTorch, every row's reference timing kept",
                       [i for i in near if rows(i) and (i.get("ref_kept_rows") or 0) >= rows(i)]),
                      ("near PyTorch, none kept", [i for i in near if not i.get("ref_kept_rows")])):
        k = sum(i.get("seconds") or 0 for i in sel)
        gs = sum(gold[i["task"]]["seconds"] for i in sel)
        print(f"by class: {name}: {len(sel)} items, kbx {k:.1f} s, golden {gs:.1f} s"
              + (f", {k / gs:.2f}x" if gs > 0 else ""))
print(f"{'category':20s} {'kbx eval s':>11s} {'golden s':>9s}")
for cat in sorted(set(cat_eval) | set(cat_gold)):
    print(f"{cat:20s} {cat_eval.get(cat, 0):11.1f} {cat_gold.get(cat, 0):9.1f}")
PY
