#!/bin/sh
# The sweep (issue "Performance"): every task's reference evaluated as a candidate by `kbx eval`,
# each perf row timed once (a reference run as the candidate is not timed again as the
# baseline), on one GPU. Writes OUT/refs.jsonl, OUT/eval/ (metrics.json, summary.json) and
# OUT/sweep.txt (wall time, split, reference quality: bench/sweep_report.py).
# usage: bench/sweep.sh KBX OUT [kbx eval options, e.g. --shard 0/2]
# Environment: KBX_TASKS (default ./tasks), LD_LIBRARY_PATH for a carried binary.
set -eu
kbx=$1
out=$2
shift 2
tasks=${KBX_TASKS:-$PWD/tasks}
mkdir -p "$out"
python3 - "$tasks" "$out/refs.jsonl" <<'PY'
import json, os, sys
root, dest = sys.argv[1], sys.argv[2]
with open(dest, "w") as f:
    for cat in sorted(os.listdir(root)):
        d = os.path.join(root, cat)
        if not os.path.isdir(d) or cat in ("include", "golden"):
            continue
        for name in sorted(os.listdir(d)):
            ref = os.path.join(d, name, "reference.cu")
            if os.path.isfile(ref):
                f.write(json.dumps({"file": f"{cat}/{name}.py", "predict": open(ref).read()}) + "\n")
PY
echo "sweep: $(wc -l <"$out/refs.jsonl") references"
start=$(date +%s.%N)
KBX_TASKS=$tasks KBX_DB=${KBX_DB:-$out/history.db} "$kbx" eval "$out/refs.jsonl" --out "$out/eval" --quiet "$@" >"$out/eval.txt" 2>&1 || true
end=$(date +%s.%N)
wall=$(python3 -c "print(round($end - $start, 1))")
python3 "$(dirname "$0")/sweep_report.py" "$out/eval" --wall "$wall" | tee "$out/sweep.txt"
