#!/bin/sh
# One GPU session's checks, in the order a reviewer needs them (used on a lent H200):
#   1. every task: reference passes every case; every example gets its announced verdict
#      (tests/gpu/gpu.sh, KBX_GPU_JOBS runs side by side); the adversarial corpus gets its
#      announced verdicts and reasons (tests/adversarial/gpu.sh, one at a time)
#   2. PyTorch cross-check of every task against KernelBenchX (tools/crosscheck.py)
#   3. timing fidelity against triton.testing.do_bench (bench/timing_fidelity.py)
#   4. with FAST=1: the stage program's GPU test (tests/gpu/stages.sh) and every faster
#      candidate reference timed next to its reference (bench/fast_examples.py)
# usage: bench/h200_session.sh KBX KERNELBENCHX_DIR OUTDIR
# Environment: KBX_TASKS (default ./tasks), JOBS (default 12), and LD_LIBRARY_PATH for a carried
# binary. Every step has its own time limit so that the whole fits in one 10-minute call.
kbx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ref=$2
out=$3
jobs=${JOBS:-12}
mkdir -p "$out"
export KBX_TASKS=${KBX_TASKS:-$PWD/tasks} KBX_DB=${KBX_DB:-/tmp/kbx-session.db} PYTHONUNBUFFERED=1
"$kbx" doctor
start=$(date +%s)
KBX_BUILDDIR=$(dirname "$kbx") KBX_SRCDIR=$PWD KBX_GPU_JOBS=$jobs timeout "${GPU_LIMIT:-220}" sh tests/gpu/gpu.sh \
	>"$out/gpu.log" 2>&1
echo "gpu.sh: rc=$? in $(( $(date +%s) - start )) s; $(grep -c '^ok' "$out/gpu.log") ok, $(grep -c '^FAIL' "$out/gpu.log") FAIL"
grep '^FAIL' "$out/gpu.log" | cut -c1-300
start=$(date +%s)
KBX_BUILDDIR=$(dirname "$kbx") KBX_SRCDIR=$PWD timeout "${ADV_LIMIT:-120}" sh tests/adversarial/gpu.sh \
	>"$out/adversarial.log" 2>&1
echo "adversarial: rc=$? in $(( $(date +%s) - start )) s; $(grep -c '^ok' "$out/adversarial.log") ok, $(grep -c '^FAIL' "$out/adversarial.log") FAIL"
grep '^FAIL' "$out/adversarial.log" | cut -c1-300
start=$(date +%s)
timeout "${CROSS_LIMIT:-200}" python3 tools/crosscheck.py --kbx "$kbx" --kernelbenchx "$ref" --jobs "$jobs" \
	--out "$out/crosscheck.json" >"$out/crosscheck.txt" 2>&1
echo "crosscheck: rc=$? in $(( $(date +%s) - start )) s"
tail -1 "$out/crosscheck.txt"
grep -E ' FAIL ' "$out/crosscheck.txt" | cut -c1-300
timeout "${TIMING_LIMIT:-200}" python3 bench/timing_fidelity.py --kbx "$kbx" --rounds 3 --out "$out/timing.json" >"$out/timing.txt" 2>&1
tail -3 "$out/timing.txt"
[ "${FAST:-0}" = 1 ] || exit 0
KBX_BUILDDIR=$(dirname "$kbx") KBX_SRCDIR=$PWD timeout "${STAGES_LIMIT:-120}" sh tests/gpu/stages.sh >"$out/stages.log" 2>&1
echo "stages.sh: rc=$?"
grep -E '^(ok|FAIL)' "$out/stages.log"
timeout "${FAST_LIMIT:-400}" python3 bench/fast_examples.py --kbx "$kbx" --out "$out/fast" --timeout 150 >"$out/fast.txt" 2>&1
echo "fast_examples: rc=$?"
cat "$out/fast.txt"
