#!/bin/sh
# GPU tests: every reference passes every case; every example gets the verdict its first line
# announces; planted bugs (hang, out-of-bounds write, unwritten tail, modified input) are caught
# with a message saying so. Skips (77) without a CUDA device.
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="$tmp/history.db"

if ! "$kbx" doctor >"$tmp/doctor" 2>&1 || ! grep -q '^gpu  *ok' "$tmp/doctor"; then
	echo "SKIP: no CUDA device"
	cat "$tmp/doctor"
	exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read --json"; exit 77; }

fail=0
verdict_of() {  # task file -> verdict (and keeps the JSON in $tmp/last.json)
	"$kbx" run "$1" "$2" --no-perf --json --launch-timeout "${3:-10}" >"$tmp/last.json" 2>"$tmp/last.err"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$tmp/last.json" 2>/dev/null || echo none
}
message_of() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["summary"]["message"])' "$tmp/last.json" 2>/dev/null
}

# Every task, KBX_GPU_JOBS at a time (one GPU runs several short verifications side by side).
ls "$srcdir"/tasks/*/*/task.ini | xargs -n 1 dirname | xargs -P "${KBX_GPU_JOBS:-1}" -n 1 sh "$srcdir/tests/gpu/check_task.sh" "$kbx" \
	>"$tmp/tasks.log" 2>&1 || fail=1
sort -k3 "$tmp/tasks.log"
grep -q '^FAIL' "$tmp/tasks.log" && fail=1

# Planted bugs on gelu: each must be caught for the right reason.
planted() {  # file expected-verdict message-pattern [launch-timeout]
	start=$(date +%s)
	v=$(verdict_of Activation/gelu "$srcdir/tests/gpu/planted/$1" "${4:-10}")
	m=$(message_of)
	took=$(( $(date +%s) - start ))
	if [ "$v" = "$2" ] && echo "$m" | grep -qE "$3"; then echo "ok   planted $1: $v ($m) in ${took}s"
	else echo "FAIL planted $1: got $v ($m), expected $2 matching /$3/"; fail=1; fi
}
planted hang.cu timeout "ran past its 3 s limit" 3
planted oob_write.cu wrong "wrote outside buffer 'y'"
planted unwritten_tail.cu wrong "unwritten"
planted modifies_input.cu wrong "modified input 'x'"
planted illegal_address.cu runtime_error "ILLEGAL_ADDRESS|illegal"
planted abi_mismatch.cu abi_error "parameter 3 \('n'\) is 4 bytes but the launch passes 8 bytes"
planted replay.cu wrong "second run on the same inputs is wrong"
planted missing_kernel.cu abi_error "defines no extern \"C\" __global__ function"
# The patient replayer passes every correctness case and is caught only after timing.
"$kbx" run Activation/gelu "$srcdir/tests/gpu/planted/replay_after_warmup.cu" --rows 2 --json >"$tmp/last.json" 2>"$tmp/last.err"
v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$tmp/last.json" 2>/dev/null || echo none)
m=$(message_of)
if [ "$v" = wrong ] && echo "$m" | grep -q "after timing"; then echo "ok   planted replay_after_warmup.cu: $v ($m)"
else echo "FAIL planted replay_after_warmup.cu: got $v ($m)"; fail=1; fi
# After a timeout and a fault, the next run works in a fresh worker.
v=$(verdict_of Activation/gelu "$srcdir/tasks/Activation/gelu/reference.cu")
if [ "$v" = pass ]; then echo "ok   fresh worker after faults"; else echo "FAIL fresh worker after faults: $v"; fail=1; fi
exit $fail
