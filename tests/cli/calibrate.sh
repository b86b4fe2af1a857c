#!/bin/sh
# `kbx doctor --calibrate` and `--device` from the command line, with or without a GPU: bad
# options, the failure without a device, the worker's side of a calibrate request, and the
# fraction keys of an evaluation's metrics.json. The measurement itself: tests/gpu/calibrate.sh.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

expect 0 "doctor --help" -- "$kbx" doctor --help
contains "$tmp/out" "--calibrate" "help names --calibrate"
contains "$tmp/out" "--device N" "help names --device"
"$kbx" --help >"$tmp/out" 2>&1
contains "$tmp/out" "doctor \[--calibrate\]" "kbx --help mentions doctor --calibrate"

for bad in x -1 +1 1e3 0x1 1.0 1024 99999999999999999999 "" " 1" "0,1"; do
	expect 2 "--device '$bad' refused" -- "$kbx" doctor --calibrate --device "$bad"
	contains "$tmp/err" "--device: expected a CUDA device number" "--device '$bad' is explained"
done
expect 2 "--device without a value" -- "$kbx" doctor --device
expect 2 "an unknown option" -- "$kbx" doctor --calibrat0r
expect 2 "a stray argument" -- "$kbx" doctor calibrate
[ -e "$KBX_DB" ] && no "bad options create no history" || ok "bad options create no history"

"$kbx" doctor >"$tmp/doctor" 2>&1
if grep -q '^gpu  *ok' "$tmp/doctor"; then
	contains "$tmp/doctor" "^calib  *-- +none for .*kbx doctor --calibrate" "doctor says how to calibrate"
	expect 1 "--calibrate on a device that is not there" -- "$kbx" doctor --calibrate --device 1023
	contains "$tmp/err" "cannot calibrate: no CUDA device 1023" "the missing device is named"
	expect 1 "doctor --device past the last one" -- "$kbx" doctor --device 1023
	contains "$tmp/out" "^gpu  *-- +no CUDA device 1023" "doctor names the missing device"
	lacks "$tmp/out" "^calib" "no calibration line without the device"
else
	lacks "$tmp/doctor" "^calib" "no calibration line without a GPU"
	rm -f "$KBX_DB"
	expect 1 "--calibrate without a GPU fails" -- "$kbx" doctor --calibrate
	contains "$tmp/err" "^kbx: cannot calibrate: (no CUDA|GPU support was not built)" "and says why"
	lacks "$tmp/out" "GB/s" "no figures without a GPU"
	expect 1 "--calibrate --device 3 without a GPU fails" -- "$kbx" doctor --calibrate --device 3
	contains "$tmp/err" "cannot calibrate" "and says why, too"
	[ -e "$KBX_DB" ] && no "a failed calibration stores nothing" || ok "a failed calibration stores nothing"

	# the worker's side of the request: a done event saying why, no calibration, status 1
	echo '{"op":"calibrate","device":0}' | "$kbx" worker >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 1 ] && ok "a calibrate request fails in the worker" || no "a calibrate request fails in the worker"
	contains "$tmp/out" '"ev":"done","verdict":"(not_run|error)"' "the worker answers with done"
	lacks "$tmp/out" '"ev":"calibration"' "and no calibration"
fi
echo '{"op":"frobnicate"}' | "$kbx" worker >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && ok "an unknown op is refused" || no "an unknown op is refused"
contains "$tmp/err" '"op" must be' "the op is explained"

# metrics.json of an evaluation has the fraction keys (null without a calibration or timing)
printf '{"file": "Activation/gelu.py", "predict": %s}\n' \
	"$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$srcdir/tasks/Activation/gelu/reference.cu")" \
	>"$tmp/pred.jsonl"
expect 0 "eval of one item" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/ev" --no-perf --quiet
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
item = m["items"][0]
assert "bw_fraction" in item and "flop_fraction" in item, item
assert item["bw_fraction"] is None and item["flop_fraction"] is None, item
' "$tmp/ev/metrics.json" && ok "metrics.json carries bw_fraction and flop_fraction" || no "metrics.json lacks the fractions"

echo "1..$n"
exit $fail
