#!/bin/sh
# `kbx run TASK --triton DIR`: the Triton cache entries of tests/data/triton/ (one gelu kernel as
# Triton 3.0, 3.3 and 3.6 compile it for sm_90, and one through device-side TMA descriptors kept
# in Triton's global scratch) as candidates for Activation/gelu. Without a GPU
# every check that needs none runs and the verdict is not_run; on an sm_90 GPU they must pass,
# with the cubin and with the PTX alone (JIT-compiled by the driver); on another GPU the cubin is
# refused as built for sm_90a.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"
data="$srcdir/tests/data/triton"
launch='gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)'

"$kbx" doctor >"$tmp/doctor" 2>&1
gpu=none
if grep -q '^gpu  *ok' "$tmp/doctor"; then
	gpu=other
	# the fixtures are for sm_90 (H100, H200): doctor's line "gpu  ok  NAME (sm_90, ...)"
	grep '^gpu' "$tmp/doctor" | grep -q '(sm_90,' && gpu=sm90
fi
echo "# GPU: $gpu"

# the PTX alone: cuModuleLoadData JIT-compiles it
mkdir "$tmp/ptx"
cp "$data/gelu-3.6/gelu_kernel.json" "$data/gelu-3.6/gelu_kernel.ttir" "$data/gelu-3.6/gelu_kernel.ptx" "$tmp/ptx/"

for entry in "$data/gelu-3.0" "$data/gelu-3.3" "$data/gelu-3.6" "$tmp/ptx" "$data/gelu-tma-3.6"; do
	name=${entry##*/}
	launch='gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)'
	# device-side TMA descriptors in Triton's global scratch (256 bytes a program), 4104 bytes of shared memory
	[ "$name" = gelu-tma-3.6 ] && launch='gelu_tma_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)'
	case $gpu in
	sm90)
		expect 0 "$name passes" -- "$kbx" run gelu --triton "$entry" --launch "$launch" --rows 2
		contains "$tmp/out" "verdict +pass" "$name: verdict pass" ;;
	other)
		expect 1 "$name on a GPU other than sm_90" -- "$kbx" run gelu --triton "$entry" --launch "$launch" --no-perf
		contains "$tmp/out" "verdict +abi_error" "$name: refused on this GPU"
		contains "$tmp/out" "compiled for sm_90a" "$name: says what it was built for" ;;
	none)
		expect 1 "$name without a GPU" -- "$kbx" run gelu --triton "$entry" --launch "$launch" --no-perf
		contains "$tmp/out" "compile +ok .* sm_90" "$name: no NVRTC, the metadata's target"
		contains "$tmp/out" "Triton .*kernel 'gelu_(tma_)?kernel'" "$name: says what the entry holds"
		contains "$tmp/out" "verdict +not_run" "$name: verdict not_run" ;;
	esac
done

launch='gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)'

# the 3.3 entry has its launch line in kbx-launch.txt
if [ $gpu = sm90 ]; then
	expect 0 "launch from kbx-launch.txt (GPU)" -- "$kbx" run gelu --triton "$data/gelu-3.3" --no-perf
else
	expect 1 "launch from kbx-launch.txt" -- "$kbx" run gelu --triton "$data/gelu-3.3" --no-perf
	contains "$tmp/out" "verdict +(not_run|abi_error)" "kbx-launch.txt read"
fi

# disagreements are found without a GPU
expect 1 "n passed as i64" -- "$kbx" run gelu --triton "$data/gelu-3.6" --launch 'gelu_kernel<<<cdiv(n, 1024)>>>(x, y, n, approximate)'
contains "$tmp/out" "verdict +abi_error" "abi_error"
contains "$tmp/out" "parameter 3 'n' is i32 in the Triton signature but 'n' is i64; write i32\(n\)" "says how to pass n"
expect 1 "a block that is not 32 x num_warps" -- "$kbx" run gelu --triton "$data/gelu-3.0" \
	--launch 'gelu_kernel<<<cdiv(n, 256), 256>>>(x, y, i32(n), approximate)'
contains "$tmp/out" "num_warps 4" "names num_warps"
expect 1 "a launch line that does not parse" -- "$kbx" run gelu --triton "$data/gelu-3.6" --launch 'gelu_kernel<<<cdiv(n, 1024)>>>(x, y'
contains "$tmp/out" "verdict +compile_error" "compile_error"
contains "$tmp/out" "'--launch' column" "points into the launch line"
expect 1 "JSON output" -- "$kbx" run gelu --triton "$data/gelu-3.6" --launch "$launch" --no-perf --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
assert "gelu_kernel" in s and ("not_run" in s or "pass" in s or "abi_error" in s), s[:400]
' "$tmp/out" && ok "JSON output names the verdict" || no "JSON output"

# usage errors: exit 2 before any worker
expect 2 "no launch line" -- "$kbx" run gelu --triton "$data/gelu-3.6"
contains "$tmp/err" "give one with --launch" "says how to give one"
contains "$tmp/err" "kbx-launch.txt" "and where to write it"
expect 2 "a missing entry" -- "$kbx" run gelu --triton "$tmp/nope" --launch "$launch"
contains "$tmp/err" "cannot open Triton cache entry" "missing entry named"
expect 2 "a folder that is no cache entry" -- "$kbx" run gelu --triton "$srcdir/tasks" --launch "$launch"
contains "$tmp/err" "holds no kernel metadata" "says what is missing"
expect 2 "--triton and a FILE" -- "$kbx" run gelu "$srcdir/tasks/Activation/gelu/reference.cu" --triton "$data/gelu-3.6"
expect 2 "--launch without --triton" -- "$kbx" run gelu --launch "$launch"

# history keeps the entry, its launch line and IR as the source
expect 1 "recorded" -- "$kbx" run gelu --triton "$data/gelu-3.0" --launch "$launch" --no-perf
python3 -c '
import sqlite3, sys
src, path = sqlite3.connect(sys.argv[1]).execute(
    "select source, source_path from runs order by rowid desc limit 1").fetchone()
assert "// launch: " + sys.argv[2] in src, src[:300]
assert "tt.func public @gelu_kernel(" in src, src[:300]
assert path.endswith("gelu-3.0"), path
' "$KBX_DB" "$launch" && ok "history holds the entry, its launch line and IR" || no "history of a Triton run"

echo "1..$n"
exit $fail
