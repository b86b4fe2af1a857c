#!/bin/sh
# `kbx run --sanitize auto` and `kbx eval --sanitize auto` with a stand-in compute-sanitizer
# (tests/data/fake-compute-sanitizer): racecheck and initcheck run first, each on the task's
# smallest case, their findings come on the candidate's lines, then the run itself; without
# the tool, or for a Python candidate, a line says so and the run goes on. Without a GPU the
# verdicts are not_run, which a finding does not turn into pass; on a GPU a finding turns a pass
# into wrong (tests/gpu: the real tool).
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"
export KBX_COMPUTE_SANITIZER="$srcdir/tests/data/fake-compute-sanitizer" FAKE_SAN_CALLS="$tmp/calls"
cand="$srcdir/tasks/Activation/gelu/reference.cu"

expect 1 "--sanitize auto with no findings" -- "$kbx" run Activation/gelu "$cand" --sanitize auto --no-history
contains "$tmp/out" "--sanitize auto: racecheck on case 'size1_none'" "racecheck on the smallest case with data"
contains "$tmp/out" "--sanitize auto: initcheck on case 'size1_none'" "then initcheck"
contains "$tmp/calls" "^racecheck$" "the tool ran for racecheck"
contains "$tmp/calls" "^initcheck$" "and for initcheck"
lacks "$tmp/out" "warnings.*sanitizer" "no findings, no warning"

rm -f "$tmp/calls"
FAKE_SAN_CANDIDATE="$cand" expect 1 "--sanitize auto with a race" -- "$kbx" run Activation/gelu "$cand" --sanitize auto --no-history --json
contains "$tmp/out" "compute-sanitizer racecheck: .*reference.cu:7: .*Race" "the race on the candidate's line"
contains "$tmp/out" '"sanitizer"' "the run carries the warning"

KBX_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer expect 1 "--sanitize auto without the tool" -- "$kbx" run Activation/gelu "$cand" --sanitize auto --no-history
contains "$tmp/out" "compute-sanitizer not found .*ran without it" "says it ran without"

printf 'import torch\ndef gelu(input, approximate="none"):\n    return input\n' >"$tmp/c.py"
expect 1 "--sanitize auto on a Python candidate" -- "$kbx" run Activation/gelu "$tmp/c.py" --sanitize auto --no-history
contains "$tmp/out" "CUDA sources only" "a Python candidate runs without it, and is told so"

expect 2 "--sanitize with another word" -- "$kbx" run Activation/gelu "$cand" --sanitize often --no-history
contains "$tmp/err" "expects auto, memcheck" "names the choices"

python3 -c 'import json,sys; print(json.dumps({"file": "Activation/gelu.py", "predict": open(sys.argv[1]).read()}))' "$cand" >"$tmp/p.jsonl"
rm -f "$tmp/calls"
FAKE_SAN_CANDIDATE="p.jsonl:1" expect 0 "eval --sanitize auto" -- "$kbx" eval "$tmp/p.jsonl" --out "$tmp/ev" --sanitize auto --quiet --no-perf
contains "$tmp/calls" "^racecheck$" "eval ran the tool"
expect 2 "eval --sanitize takes only auto" -- "$kbx" eval "$tmp/p.jsonl" --out "$tmp/ev2" --sanitize racecheck
exit $fail
