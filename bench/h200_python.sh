#!/bin/sh
# The Python/Triton path on a lent H200, in one device call (issue 16's checks):
#   1. the worker's own smoke test, driving its callbacks with torch's tensors
#      (tests/python/gpu_smoke.py: every dtype wrapped, gelu both ways, not_kernel, compile and
#      dtype errors on their lines, an autotune config that is wrong, KernelBenchX's two examples,
#      guard zones, an illegal address last)
#   2. every candidate of tests/triton/ through `kbx run` and the whole set through `kbx eval`
#      (tests/gpu/triton_py.sh), then KernelBenchX's two example candidates through `kbx run`
#   3. kbx's medians against triton.testing.do_bench for the correct ones, and the Python path's
#      per-item overhead in an evaluation (bench/python_timing.py --overhead)
# usage: bench/h200_python.sh KBX KERNELBENCHX_DIR OUTDIR
# KBX is a build's kbx with py/libkbxpy.so beside it (or KBX_PYLIB); KERNELBENCHX_DIR holds
# examples/ (predictions.gelu.jsonl, matmul_w8a8.py). Each step has its own time limit.
kbx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ref=$2
out=$3
mkdir -p "$out"
export KBX_TASKS=${KBX_TASKS:-$PWD/tasks} KBX_DB=${KBX_DB:-/tmp/kbx-python.db} PYTHONUNBUFFERED=1
lib=${KBX_PYLIB:-$(dirname "$kbx")/py/libkbxpy.so}
"$kbx" doctor | grep -E '^(gpu|python|torch|triton|pyworker)'
start=$(date +%s)
timeout "${SMOKE_LIMIT:-150}" python3 tests/python/gpu_smoke.py --kbx "$ref" --pylib "$lib" >"$out/smoke.log" 2>&1
echo "gpu_smoke: rc=$? in $(( $(date +%s) - start )) s; $(grep -c '^PASS' "$out/smoke.log") PASS, $(grep -c '^FAIL' "$out/smoke.log") FAIL"
grep '^FAIL' "$out/smoke.log" | cut -c1-300
start=$(date +%s)
KBX_BUILDDIR=$(dirname "$kbx") KBX_SRCDIR=$PWD KBX_GPU_JOBS=${JOBS:-6} timeout "${TRITON_LIMIT:-300}" sh tests/gpu/triton_py.sh >"$out/triton_py.log" 2>&1
echo "triton_py: rc=$? in $(( $(date +%s) - start )) s; $(grep -c '^ok' "$out/triton_py.log") ok, $(grep -c '^FAIL' "$out/triton_py.log") FAIL"
grep '^FAIL' "$out/triton_py.log" | cut -c1-300
python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['predict'])" \
	"$ref/examples/predictions.gelu.jsonl" >"$out/kbx_example_gelu.py"
for pair in "Activation/gelu $out/kbx_example_gelu.py" "Quantization/matmul_w8a8 $ref/examples/matmul_w8a8.py"; do
	set -- $pair
	timeout 200 "$kbx" run "$1" "$2" --rows 2 --no-history >"$out/example_$(basename "$1").txt" 2>&1
	echo "KernelBenchX example $1: rc=$? $(grep -E '^verdict' -A1 "$out/example_$(basename "$1").txt" | tr -s ' \n' ' ')"
done
start=$(date +%s)
timeout "${TIMING_LIMIT:-240}" python3 bench/python_timing.py --kbx "$kbx" --rounds 3 --rows 2 --overhead \
	--out "$out/python_timing.json" >"$out/python_timing.txt" 2>&1
echo "python_timing: rc=$? in $(( $(date +%s) - start )) s"
grep -E '^(ok|FAIL)|overhead' "$out/python_timing.txt" | cut -c1-200
