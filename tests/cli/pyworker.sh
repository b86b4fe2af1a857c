#!/bin/sh
# The Python worker's supervision, with a stand-in worker (tests/data/python/stub_worker.py: the
# real libkbxpy.so, callbacks that need no torch): `kbx eval` keeps one worker for all Python
# items of a GPU, replaces one that died, and nothing the worker prints outside the protocol
# disturbs it; the worker's environment is scrubbed.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "# no python3"; exit 77; }
export KBX_PYWORKER="$srcdir/tests/data/python/stub_worker.py"
export KBX_TEST_SECRET=hunter2

python3 - "$tmp/pred.jsonl" <<'PY'
import json, sys
src = "import torch\ndef gelu(input, approximate='none'):\n    return input\n"
with open(sys.argv[1], "w") as f:
    for i in range(3):
        f.write(json.dumps({"file": "Activation/gelu.py", "predict": src + "# item %d\n" % i}) + "\n")
    f.write(json.dumps({"file": "Activation/gelu.py", "predict": src + "# stub: retire\n"}) + "\n")
    f.write(json.dumps({"file": "Activation/gelu.py", "predict": src + "# after the retirement\n"}) + "\n")
    f.write(json.dumps({"file": "Activation/gelu.py", "predict": src + "# stub: die\n"}) + "\n")
    f.write(json.dumps({"file": "Activation/gelu.py", "predict": src + "# after the death\n"}) + "\n")
PY
expect 0 "eval of seven Python items" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/ev" --quiet --no-perf
pids=$(grep -o 'stub worker pid [0-9]*' "$tmp/ev/progress.jsonl" | sort | uniq -c | sed 's/^ *//')
echo "$pids" | sed 's/^/# /'
first=$(echo "$pids" | awk '$1 == 4 {print $5}')
[ -n "$first" ] && ok "one worker served the first four items" || no "one worker served the first four items"
[ "$(echo "$pids" | wc -l)" -eq 3 ] && ok "a new worker after the one that retired and after the one that died" ||
	no "a new worker after the one that retired and after the one that died"
# the item after a retirement is served by a fresh worker: a verdict, never "exited during 'start'"
contains "$tmp/ev/progress.jsonl" '"line 5".*"not_run"|"not_run".*"line 5"' "the item after a retired worker gets its verdict"
lacks "$tmp/ev/progress.jsonl" "during 'start'" "no item is charged with the previous one's retirement"
contains "$tmp/ev/progress.jsonl" '"line 6".*"runtime_error"|"runtime_error".*"line 6"' "the item whose worker died is runtime_error"
contains "$tmp/ev/progress.jsonl" "exited with status 3" "says how the worker ended"
lacks "$tmp/ev/progress.jsonl" "stub: (something|raw bytes)" "stdout of the worker never enters the protocol"
lacks "$tmp/ev/progress.jsonl" "unreadable|not JSON|bad event" "no event was garbled"

printf 'import torch\ndef gelu(input, approximate="none"):\n    return input\n' >"$tmp/cand.py"
expect 1 "kbx run with the stand-in" -- "$kbx" run Activation/gelu "$tmp/cand.py" --no-history --json
contains "$tmp/out" '"verdict": "not_run"' "the run ends as the worker said"
contains "$tmp/out" "SECRET=None" "the worker's environment is scrubbed"
contains "$tmp/out" "HOME=True" "what Python needs passes"
contains "$tmp/out" "sandbox (network namespace|user and network namespace|none: )" "the sandbox says what it did"
expect 1 "kbx run with the stand-in, as text" -- "$kbx" run Activation/gelu "$tmp/cand.py" --no-history
contains "$tmp/out" "^load +ok .*Python worker" "a Python module is loaded, not compiled"
lacks "$tmp/out" "^compile" "and no compile line names an arch 'python'"
exit $fail
