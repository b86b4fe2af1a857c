#!/bin/sh
# bench/golden_sweep.py without a GPU (issue 20): on a made-up KernelBenchX tree, --list finds the
# tasks that have a perf workload, --gpus deals them to one child sweep per GPU and merges what
# the children report, and a child that cannot time anything (no torch here, or no GPU) leaves
# each of its tasks with an error naming its GPU rather than losing them.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

command -v python3 >/dev/null || { echo "# python3 missing: skipped"; exit 77; }
gs="$srcdir/bench/golden_sweep.py"
kb="$tmp/kb"
mkdir -p "$kb/tasks/Math" "$kb/tasks/Reduce" "$kb/perf"
for t in Math/add Math/mul Math/exp Reduce/sum Reduce/max; do
	printf 'import torch\ndef %s(x):\n    return x\n' "${t#*/}" >"$kb/tasks/$t.py"
	[ "$t" = Reduce/max ] || echo "# the perf workload of ${t#*/}" >"$kb/perf/${t#*/}_perf.py"
done

expect 0 "golden_sweep --list" -- python3 "$gs" --kernelbenchx "$kb" --list
contains "$tmp/out" "^4 tasks$" "finds the four tasks with a perf workload"
lacks "$tmp/out" "Reduce/max" "and leaves out the one without"
expect 2 "golden_sweep --gpus with a repeated GPU" -- python3 "$gs" --kernelbenchx "$kb" --gpus 0,0
contains "$tmp/err" "expected distinct GPU ordinals" "says what it expected"
expect 2 "golden_sweep --gpus with a name" -- python3 "$gs" --kernelbenchx "$kb" --gpus 0,x

# Three GPUs for four tasks: 2, 1 and 1 of them. Whether or not this machine has torch and a GPU,
# none of these made-up workloads can be timed, so every task comes back with an error.
python3 "$gs" --kernelbenchx "$kb" --gpus 0,1,2 --out "$tmp/g.json" >"$tmp/out" 2>&1
contains "$tmp/out" "^golden sweep: 4 tasks \(4 failed\) on 3 GPUs in " "the merged summary line"
python3 - "$tmp/g.json" >"$tmp/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpus"] == ["0", "1", "2"], d["gpus"]
assert sorted(d["tasks"]) == ["Math/add", "Math/exp", "Math/mul", "Reduce/sum"], sorted(d["tasks"])
assert d["wall_s"] >= 0
for tid, e in d["tasks"].items():
    assert e["error"] and e["rows"] == [], (tid, e)
print("merged ok")
PY
contains "$tmp/check" "^merged ok$" "every task is in the merged file, with its error and no rows"
if ! python3 -c "import torch" 2>/dev/null; then
	# without torch each child dies at its import: its tasks say so, with their GPU
	contains "$tmp/g.json" '"error": "the sweep on GPU 1 ended without it: ModuleNotFoundError' \
		"a child that died names its GPU and why"
fi
exit $fail
