#!/bin/sh
# The Triton candidates of tests/triton/ on a GPU: each runs as `kbx run TASK FILE --json` (the
# Python worker) and must get the verdict its header announces, with its `because` pattern
# (grep -E) found in the summary message or, failing that, anywhere in the run's JSON (the logs).
# --no-perf unless the header's args ask for --rows; the header's args come last. Then: the
# syntax error is never NVRTC's, and a run after the hang and the fault still passes (a fresh
# worker). One line per candidate (tests/gpu/triton_one.sh, KBX_GPU_JOBS of them at once): ok|FAIL
# file  expected  got  message (seconds).
# Skips (77) without a CUDA device or without python3 with torch and triton.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"
dir="$srcdir/tests/triton"
: "${KBX_TASKS:=$srcdir/tasks}"
export KBX_TASKS

need_gpu
if ! python3 -c 'import torch, triton; assert torch.cuda.is_available()' 2>/dev/null; then
	echo "SKIP: python3 with torch (CUDA) and triton needed"
	exit 77
fi

# fields JSON: the verdict on line 1, the summary message on line 2
fields() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d.get("verdict", ""))
print(" ".join(str((d.get("summary") or {}).get("message", "")).split()))' "$1" 2>/dev/null
}

fail=0
n=$(find "$dir" -maxdepth 1 -name '*.py' | wc -l)
# KBX_GPU_JOBS candidates at a time (each in its own worker; verdicts do not depend on timing).
# EVAL_ONLY=1 skips these runs (a device call that has them already) and goes to the eval.
if [ "${EVAL_ONLY:-0}" != 1 ]; then
	find "$dir" -maxdepth 1 -name '*.py' | sort | xargs -P "${KBX_GPU_JOBS:-1}" -n 1 sh "$srcdir/tests/gpu/triton_one.sh" "$kbx" \
		>"$tmp/each.log" 2>&1
	sort -k2 "$tmp/each.log"
	grep -q '^FAIL' "$tmp/each.log" && fail=1
fi
[ "$n" -gt 0 ] || { echo "FAIL: no candidates in $dir"; fail=1; }

# The whole set as one KernelBenchX predictions.jsonl (fenced, as LLM answers come): one kept
# worker serves every item; each item's verdict must be the one its header announces, and the
# metrics and summary must be written. (--no-perf: the timings are the runs' above.)
python3 - "$dir" "$tmp/pred.jsonl" "$tmp/want.txt" <<'PY'
import json, os, sys
d, pred, want = sys.argv[1:]
with open(pred, "w") as p, open(want, "w") as w:
    n = 0
    for f in sorted(os.listdir(d)):
        if not f.endswith(".py"):
            continue
        text = open(os.path.join(d, f)).read()
        head = {l[7:].split(" ", 1)[0]: l[7:].split(" ", 1)[1].strip() for l in text.splitlines()
                if l.startswith("# @kbx ") and " " in l[7:]}
        if "--launch-timeout" in head.get("args", ""):
            continue          # the hang: once above is enough
        n += 1
        p.write(json.dumps({"file": head["task"] + ".py", "predict": "```python\n" + text + "```\n"}) + "\n")
        w.write("line %d %s %s\n" % (n, head["expect"], f))
PY
# KBX_EVAL_OUT keeps the evaluation's folder (progress.jsonl survives a time limit)
ev=${KBX_EVAL_OUT:-$tmp/ev}
if "$kbx" eval "$tmp/pred.jsonl" --out "$ev" --no-perf --quiet --launch-timeout 10 >"$tmp/eval.out" 2>&1 &&
   [ -s "$ev/metrics.json" ] && [ -s "$ev/summary.json" ]; then
	bad=0
	while read -r _ id want file; do
		got=$(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("id") == sys.argv[2]:
        print(r.get("verdict"))' "$ev/progress.jsonl" "line $id")
		[ "$got" = "$want" ] || { echo "FAIL eval item $id ($file): $got, wanted $want"; bad=1; }
	done <"$tmp/want.txt"
	[ $bad = 0 ] && echo "ok   kbx eval of the set: every item's verdict, metrics.json and summary.json" || fail=1
	# each item's seconds and split: the Python path's cost per item in an evaluation
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    busy = sum(r.get(k) or 0 for k in ("compile_s", "inputs_s", "verify_s", "timing_s"))
    print("# %-8s %-28s %-14s %6.1f s, outside the split %5.1f s" % (r.get("id"), r.get("task"), r.get("verdict"), r.get("seconds") or 0, (r.get("seconds") or 0) - busy))' \
		"$ev/progress.jsonl"
else
	echo "FAIL kbx eval of the set: $(tail -5 "$tmp/eval.out")"
	fail=1
fi

# After the hang and the illegal address above, the next Python run works in a fresh worker.
"$kbx" run Activation/gelu "$dir/gelu_pass.py" --no-perf --json --no-history >"$tmp/out.json" 2>"$tmp/err"
got=$(fields "$tmp/out.json" | sed -n 1p)
if [ "$got" = pass ]; then
	echo "ok   fresh worker after faults"
else
	echo "FAIL fresh worker after faults: ${got:-none} $(head -c 300 "$tmp/err")"
	fail=1
fi
exit $fail
