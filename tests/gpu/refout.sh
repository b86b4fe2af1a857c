#!/bin/sh
# GPU test of the reference's kept outputs (core/refout.h, issue 20). LinearAlgebra/det's
# reference takes a second or more at its largest perf rows, so its outputs there are kept:
#   1. a correct candidate on a fresh history: pass, and outputs are kept (the history has some);
#   2. the same again: pass, the log says how many perf-row checks took kept outputs, and every
#      perf row's correctness is the first run's;
#   3. a planted candidate, right on every case (n <= 257) and wrong at n = 8192 alone (it negates the
#      determinant there): with kept outputs it is judged again against the reference run live
#      (the log says so), and its verdict, message and perf rows equal those of a run with
#      --retime-reference (nothing kept used), with --compare host and gpu alike;
#   4. --retime-reference uses no kept outputs;
#   5. on another fresh history, a run of the reference itself (what a sweep does) keeps its outputs
#      at both checks of each row it keeps (the fresh inputs after timing too): the correct candidate
#      after it takes kept outputs at both checks of every such row, at every output kept. (Not
#      compared with the second run above: a candidate's run decides each check by the reference's
#      call at that check, and det has a row near the bound that went either way on an H200.)
# Skips (77) without a CUDA device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu
fail=0
task=LinearAlgebra/det
good="$srcdir/tasks/$task/examples/pass_fast_blocked_lu.cu"
sed 's/d\[0\] = (float)det;/d[0] = n == 8192 ? -(float)det : (float)det;/' "$srcdir/tasks/$task/reference.cu" \
	>"$tmp/planted.cu"
if cmp -s "$srcdir/tasks/$task/reference.cu" "$tmp/planted.cu"; then
	echo "FAIL the planted candidate is the reference: its output line changed"
	exit 1
fi

run() {  # NAME SOURCE [OPTIONS...]: kbx run with the shortest timing (SOURCE "": the reference
	# itself; $db: another history), its --json in NAME.json
	name=$1 src=$2
	shift 2
	"$kbx" --db "${db:-$KBX_DB}" run "$task" ${src:+"$src"} --warmup 0 --rep 0 --json "$@" >"$tmp/$name.json" \
		2>"$tmp/$name.err"
	echo "# run $name: rc=$?"
}
run first "$good"
run second "$good"
run planted_kept "$tmp/planted.cu"
run planted_live "$tmp/planted.cu" --retime-reference
run planted_kept_gpu "$tmp/planted.cu" --compare gpu
run planted_live_gpu "$tmp/planted.cu" --compare gpu --retime-reference
run good_live "$good" --retime-reference
db="$tmp/sweep.db"
run sweep_ref ""
# what the sweep kept, counted before the candidate's run (which may keep more of its own)
python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM ref_outputs WHERE task_id = ?", (sys.argv[2],)).fetchone()[0])' \
	"$db" "$task" >"$tmp/swept.txt"
run after_sweep "$good"
db=

python3 - "$tmp" "$KBX_DB" <<'PY' || fail=1
import json, sqlite3, sys
tmp, db = sys.argv[1:3]
load = lambda n: json.load(open("%s/%s.json" % (tmp, n)))
bad = 0
def check(ok, what):
    global bad
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    bad |= not ok
def kept_line(d):
    return [l for l in d["logs"] if "outputs at" in l and "kept from earlier runs" in l]
def live_line(d):
    return [l for l in d["logs"] if "judged again against the reference run live" in l]
def rows(d):
    return [(p["row"], p["correct"], p["message"]) for p in d["perf"]]
first, second = load("first"), load("second")
n = sqlite3.connect(db).execute("SELECT COUNT(*) FROM ref_outputs WHERE task_id = 'LinearAlgebra/det'").fetchone()[0]
check(first["verdict"] == "pass" and not kept_line(first), "first run passes with nothing kept to use (%s)" % first["verdict"])
check(n > 0, "the history keeps the reference's outputs at %d perf-row check(s)" % n)
check(second["verdict"] == "pass" and kept_line(second), "second run passes on kept outputs: %s" % kept_line(second))
check(rows(first) == rows(second), "the perf rows' correctness is the first run's")
for mode in ("", "_gpu"):
    kept, live = load("planted_kept" + mode), load("planted_live" + mode)
    check(kept["verdict"] == "wrong", "planted%s: wrong (%s: %s)" % (mode, kept["verdict"], kept["summary"]["message"]))
    check(live_line(kept) and not live_line(live), "planted%s: judged again against the live reference" % mode)
    check(not kept_line(live), "planted%s: --retime-reference uses no kept outputs" % mode)
    same = (kept["verdict"], kept["summary"]["message"], rows(kept)) == (live["verdict"], live["summary"]["message"], rows(live))
    check(same, "planted%s: verdict, message and perf rows equal the live reference's" % mode)
    if not same:
        print("   kept: %s\n   live: %s" % (rows(kept), rows(live)))
kept_n = lambda d: int(kept_line(d)[0].split(" at ")[1].split(" of ")[0]) if kept_line(d) else 0
sweep_ref, after = load("sweep_ref"), load("after_sweep")
check(sweep_ref["verdict"] == "pass", "the reference's own run passes (%s)" % sweep_ref["verdict"])
swept = int(open(tmp + "/swept.txt").read())
per_row = [p.get("ref_outputs_kept", 0) for p in after["perf"]]
check(after["verdict"] == "pass" and swept > 0 and kept_n(after) == swept and
      all(k in (0, 2) for k in per_row),
      "after the reference's own run (%d outputs kept), kept outputs at %d checks, per row %s (each row at "
      "both checks or neither)" % (swept, kept_n(after), per_row))
good_live = load("good_live")
check(good_live["verdict"] == "pass" and not kept_line(good_live), "--retime-reference: pass, nothing kept used")
sys.exit(bad)
PY
exit $fail
