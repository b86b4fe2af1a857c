#!/bin/sh
# bench/tui_startup.sh - how long the explorer takes to show its first frame with a large
# history: 100,000 runs (override with RUNS=N) spread over every task of the catalogue, written
# straight into the history's schema with the sqlite3 command-line tool.
#
#   bench/tui_startup.sh [path/to/kbx]        (default: ./kbx, else $KBX_BUILDDIR/kbx)
#
# The explorer runs inside tmux (it needs a terminal) with KBX_TUI_EXIT_AFTER_DRAW=1, which
# makes it quit right after drawing its first frame and print how long that took since
# tui_main began. The script also times the whole process (exec, catalogue load, history
# summary, first frame) and reports the median of REPEAT runs (default 7), then the same up to
# the first frame that shows the history's figures (read in a thread). Exit status 1 when the
# median time to the first frame is over the budget of BUDGET_MS (default 100). INDEXES=1 adds
# covering indexes for the history's summary queries first.
set -e
kbx=${1:-${KBX_BUILDDIR:-.}/kbx}
runs=${RUNS:-100000}
repeat=${REPEAT:-7}
budget=${BUDGET_MS:-100}
srcdir=${KBX_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
tasks=${KBX_TASKS:-$srcdir/tasks}
for tool in tmux sqlite3; do
	command -v $tool >/dev/null 2>&1 || { echo "bench: $tool is needed" >&2; exit 2; }
done
[ -x "$kbx" ] || { echo "bench: no kbx binary at '$kbx'" >&2; exit 2; }
case $kbx in /*) ;; *) kbx="$(pwd)/$kbx" ;; esac

tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
db="$tmp/history.db"

# The schema comes from kbx itself (db_open creates and migrates it).
KBX_DB="$db" "$kbx" --tasks "$tasks" history >/dev/null
# Every task of the catalogue, as (id, category).
"$kbx" --tasks "$tasks" list --json | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    print("%s|%s" % (t["id"], t["category"]))' >"$tmp/tasks.txt" 2>/dev/null ||
	find "$tasks" -name task.ini | sed "s|^$tasks/||; s|/task.ini$||" | awk -F/ '{ print $1 "/" $2 "|" $1 }' >"$tmp/tasks.txt"
ntasks=$(wc -l <"$tmp/tasks.txt")

{
	echo "BEGIN;"
	echo "CREATE TEMP TABLE t(k INTEGER PRIMARY KEY, id TEXT, category TEXT);"
	awk -F'|' '{ printf "INSERT INTO t VALUES (%d, '\''%s'\'', '\''%s'\'');\n", NR - 1, $1, $2 }' "$tmp/tasks.txt"
	# runs over the last year, about a third passing with a speedup, the rest spread over the
	# other verdicts; each run with a source of realistic size
	cat <<SQL
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < $runs - 1)
INSERT INTO runs (task_id, category, gpu, driver_version, source, source_hash, source_path,
                  compile_options, verdict, warnings, message, seed, speedup_golden, speedup_ref,
                  cand_ms, ref_ms, created_at, summary_json)
SELECT t.id, t.category, 'NVIDIA H200', 13000,
       printf('// attempt %d\n%s', c.i, substr(hex(zeroblob(300)), 1, 600)),
       lower(hex(randomblob(32))), NULL, '-arch=sm_90 -std=c++17',
       CASE c.i % 9 WHEN 0 THEN 'pass' WHEN 1 THEN 'pass' WHEN 2 THEN 'pass' WHEN 3 THEN 'wrong'
                    WHEN 4 THEN 'wrong' WHEN 5 THEN 'compile_error' WHEN 6 THEN 'runtime_error'
                    WHEN 7 THEN 'timeout' ELSE 'abi_error' END,
       '', 'bench row', 0,
       CASE WHEN c.i % 9 < 3 THEN 0.5 + (c.i % 100) / 50.0 END,
       CASE WHEN c.i % 9 < 3 THEN 0.8 + (c.i % 70) / 40.0 END,
       CASE WHEN c.i % 9 < 3 THEN 0.01 + (c.i % 1000) / 1000.0 END,
       NULL, strftime('%s', 'now') - 365 * 86400 + c.i * (365.0 * 86400 / $runs), NULL
FROM c JOIN t ON t.k = c.i % $ntasks;
COMMIT;
SQL
} | sqlite3 "$db"
# INDEXES=1: add covering indexes for the summary queries (what db/ would need for the history's
# figures not to read every row; see the TUI's report)
if [ -n "$INDEXES" ]; then
	sqlite3 "$db" "CREATE INDEX IF NOT EXISTS bench_runs_summary ON runs(category, task_id, verdict, created_at, speedup_golden, speedup_ref);
		       CREATE INDEX IF NOT EXISTS bench_runs_task_summary ON runs(task_id, created_at, verdict, speedup_golden, speedup_ref);"
fi
echo "history: $(sqlite3 "$db" 'SELECT COUNT(*) FROM runs') runs over $ntasks tasks, $(du -h "$db" | cut -f1)${INDEXES:+, with covering indexes}"

tmux -S "$sock" new-session -d -s keep "sleep 100000"
# measure MODE: "1" quits after the first frame, "history" after the first frame that shows the
# history's figures (they are read in a thread, so the first frame does not wait for them)
measure() {
	i=0
	: >"$tmp/times"
	while [ $i -lt "$repeat" ]; do
		rm -f "$tmp/done"
		tmux -S "$sock" new-session -d -s "run$1$i" -x 100 -y 30 \
			"t0=\$(date +%s%N); KBX_DB='$db' KBX_TUI_EXIT_AFTER_DRAW=$1 KBX_TUI_NO_GPU=1 '$kbx' --tasks '$tasks' 2>'$tmp/err'; t1=\$(date +%s%N); echo \$(( (t1 - t0) / 1000 )) \$(sed -n 's/.* after \\([0-9.]*\\) ms.*/\\1/p' '$tmp/err') >>'$tmp/times'; touch '$tmp/done'"
		w=0
		while [ ! -e "$tmp/done" ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
		[ -e "$tmp/done" ] || { echo "bench: the explorer did not quit after its first frame" >&2; cat "$tmp/err" >&2; exit 2; }
		i=$((i + 1))
	done
	frame=$(awk '{ print $2 }' "$tmp/times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	sort -n "$tmp/times" | awk -v frame="$frame" -v what="$2" '
		{ wall[NR] = $1 / 1000.0 }
		END {
			m = int((NR + 1) / 2)
			printf "%s: process start %.1f ms (median; min %.1f, max %.1f; %d runs), tui_main %s ms\n", what, wall[m], wall[1], wall[NR], NR, frame
			print wall[m] > "/dev/stderr"
		}' 2>"$tmp/median"
}
# the process itself, without the explorer: exec, shared libraries, catalogue
t0=$(date +%s%N); "$kbx" --tasks "$tasks" list >/dev/null; t1=$(date +%s%N)
echo "for scale: kbx list (exec + libraries + catalogue) took $(( (t1 - t0) / 1000000 )) ms"
measure 1 "first frame             "
first=$(cat "$tmp/median")
measure history "first frame with history"
awk -v m="$first" -v budget="$budget" 'BEGIN {
	if (m > budget) { printf "first frame over the %d ms budget\n", budget; exit 1 }
	printf "first frame within the %d ms budget\n", budget }'
