#!/bin/sh
# GPU test of `kbx doctor --calibrate`: the three figures are plausible (positive, the copy below
# 1.1 x the theoretical bandwidth), they are stored and shown by `kbx doctor`, and `kbx run`
# reports each perf row as a fraction of them. Skips (77) without a CUDA device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"
fail=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }

need_gpu

if "$kbx" doctor --calibrate --device "${KBX_GPU_DEVICE:-0}" >"$tmp/cal" 2>&1; then
	ok "doctor --calibrate"
else
	no "doctor --calibrate"
fi
sed 's/^/# /' "$tmp/cal"

# copy  3921 GB/s  (82% of the theoretical 4800 GB/s) / f32 FMA  58.1 TFLOP/s / f16 tensor  512 TFLOP/s
python3 - "$tmp/cal" <<'PY' && ok "the figures are plausible" || no "implausible figures"
import re, sys
text = open(sys.argv[1]).read()
copy = float(re.search(r"^copy +([0-9.e+]+) GB/s", text, re.M).group(1))
fma = float(re.search(r"^f32 FMA +([0-9.e+]+) TFLOP/s", text, re.M).group(1))
peak = re.search(r"of the theoretical ([0-9.e+]+) GB/s", text)
tensor = re.search(r"^f16 tensor +([0-9.e+]+) TFLOP/s", text, re.M)
assert copy > 0 and fma > 0, (copy, fma)
if peak:
    assert copy < 1.1 * float(peak.group(1)), (copy, peak.group(1))
if tensor:
    # wmma on tensor cores is well above what the FMA units do
    assert float(tensor.group(1)) > fma, (tensor.group(1), fma)
PY

"$kbx" doctor >"$tmp/doctor" 2>&1
if grep -qE '^calib  *ok +copy [0-9.e+]+ GB/s' "$tmp/doctor"; then ok "doctor shows the stored calibration"; else no "doctor shows the stored calibration"; sed 's/^/# /' "$tmp/doctor"; fi

# kbx run: the perf rows carry their fractions, as percentages in text and numbers in JSON
for task in Activation/gelu MatrixMultiply/matmul_fp16; do
	"$kbx" run "$task" --rows 1 --json >"$tmp/run.json" 2>"$tmp/err"
	python3 - "$tmp/run.json" <<'PY' && ok "$task: fractions in --json" || { no "$task: fractions in --json"; sed 's/^/# /' "$tmp/err"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "pass", d["verdict"]
p = d["perf"][-1]
assert 0 < p["bw_fraction"] < 1.5, p
assert p["flop_fraction"] is None or 0 < p["flop_fraction"] < 1.5, p
PY
done
"$kbx" run Activation/gelu --rows 1 >"$tmp/run.txt" 2>&1
if grep -qE '^ +[0-9]+ .* [0-9.e+]+ \([0-9.<]+%\)' "$tmp/run.txt"; then ok "text shows percentages"; else no "text shows percentages"; sed 's/^/# /' "$tmp/run.txt"; fi

echo "1..$n"
exit $fail
