#!/bin/sh
# GPU test: kernels whose blocks talk to each other through global memory within one launch
# (a `cooperative` launch line with grid barriers, or __threadfence / atomics between blocks)
# get the verdict they announce on every one of KBX_GPU_REPEAT runs (default 4), not just once.
#
# An inter-block race shows only when one block runs late: fused_lu_solve's reference passed
# tests/gpu/gpu.sh for sessions, then differed from itself at n = 4097 (block 0 stored solved
# values into the vector the other blocks were still reading in the same phase). A reference is
# checked against itself, so each run executes it twice; a passing example against the
# reference. Runs go KBX_GPU_JOBS at a time (default 8), so that the GPU is shared as in a bulk
# evaluation. Skips (77) without a CUDA device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu

repeat=${KBX_GPU_REPEAT:-4}
# one line per source: TASK_ID FILE EXPECTED, each repeated
for f in "$srcdir"/tasks/*/*/reference.cu "$srcdir"/tasks/*/*/examples/*.cu; do
	grep -q '^// @kbx launch .*cooperative' "$f" || grep -q '__threadfence\|atomicAdd\|atomicInc\|atomicCAS' "$f" || continue
	case $f in
	*/examples/*) want=$(sed -n 's|^// @kbx expect \([a-z_]*\).*|\1|p' "$f" | head -1); d=$(dirname "$(dirname "$f")") ;;
	*) want=pass; d=$(dirname "$f") ;;
	esac
	id="$(basename "$(dirname "$d")")/$(basename "$d")"
	i=0
	while [ "$i" -lt "$repeat" ]; do
		echo "$id $f $want"
		i=$((i + 1))
	done
done >"$tmp/runs"
[ -s "$tmp/runs" ] || { echo "no multi-block source found"; exit 1; }
echo "# $(sort -u "$tmp/runs" | wc -l) sources, $repeat runs each"

cat >"$tmp/one.sh" <<'SH'
# one run: TASK FILE EXPECTED; prints "ok|FAIL TASK FILE: verdict (message)"
kbx=$1 id=$2 f=$3 want=$4
out=$(mktemp)
"$kbx" run "$id" "$f" --no-perf --no-history --json >"$out" 2>/dev/null
python3 - "$out" "$id" "$f" "$want" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    got, msg = d["verdict"], d["summary"]["message"]
except Exception as e:
    got, msg = "none", f"no result ({e})"
ok = got == sys.argv[4]
print(f"{'ok  ' if ok else 'FAIL'} {sys.argv[2]} {sys.argv[3].split('/tasks/')[-1]}: {got}" + ("" if ok else f", expected {sys.argv[4]}: {msg}"))
PY
rm -f "$out"
SH
xargs -P "${KBX_GPU_JOBS:-8}" -L 1 sh "$tmp/one.sh" "$kbx" <"$tmp/runs" 2>&1 | tee "$tmp/log" | sed -u "s/^/#   /"
sort "$tmp/log" | uniq -c | sed 's/^/# /'
if grep -q '^FAIL' "$tmp/log"; then
	echo "FAIL: $(grep -c '^FAIL' "$tmp/log") of $(wc -l <"$tmp/runs") runs did not get the announced verdict"
	exit 1
fi
echo "ok: $(wc -l <"$tmp/runs") runs"
