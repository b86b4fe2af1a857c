#!/bin/sh
# TUI tests for the habits people bring from less, tig, htop and ncdu: / searches task names
# (?text: summaries too) and every view's lines, n and N step through matches and wrap saying
# so, ] and [ step through failing cases in the diff (} and { through all), tables sized to
# their content, :N past the end, summaries in a wide task list. The real explorer in tmux, as
# tui.sh drives it. Skips (77) without tmux.
. "${KBX_SRCDIR:-.}/tests/tui/lib.sh"
# start COLSxROWS [env...]: a fresh explorer; its exit status lands on the screen
start() {
	size=$1
	shift
	T kill-session -t kbx 2>/dev/null
	T new-session -d -s kbx -x "${size%x*}" -y "${size#*x}" \
		"env HOME='$tmp/home' XDG_CONFIG_HOME='$tmp/config' KBX_DB='$tmp/history.db' KBX_TUI_NO_GPU=1 KBX_TUI_NO_PERF=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 $* '$kbx' --tasks '$tasks'; echo EXIT=\$?; sleep 600"
}
search() { keys /; text "$1"; keys Enter; }

# ---- the browser's search: names by default, summaries with ? ------------------------------
start 100x30
expect "Categories" "the browser opens"
keys g Enter
search '^gelu$'
expect "/\^gelu\\$/ . 1 of 184" "/^gelu\$ finds the task named gelu"
expect "Activation/gelu " "and lists it"
keys Escape
search 'erf'
expect "/erf/ . 2 of 184" "/erf matches names only: erf and erfc_sqrt"
absent "selu" "selu (whose summary says 'overflows') is not listed"
search '?erf'
expect "/\?erf/ . [0-9]+ of 184" "/?erf searches the summaries too"
expect "selu" "and finds selu"
search 'zzzq'
expect "no task name matches /zzzq/ \(/\?text searches the summaries too\)" "a search that finds nothing says how to search summaries"
search '^relu'
expect "/\^relu/ . 3 of 184" "three tasks start with relu"
keys n n
expect "relu_fp16" "n moves to the next match"
keys n
expect "search wrapped to the top" "n past the last match wraps and says so"
keys N
expect "search wrapped to the bottom" "N before the first match wraps back and says so"
keys Escape

# ---- / in a view: the task page and the help -------------------------------------------------
search '^gelu$'
keys Enter
expect "task . Activation/gelu" "the task opens"
search 'launch'
expect "/launch/ \(n: next" "/ in the task view finds a line"
expect "@kbx launch" "and shows it"
search 'nothing-like-this'
expect "no line matches /nothing-like-this/" "a search with no match says so"

# ---- the candidate: search, n through matches, :N past the end, n through diagnostics -------
keys s
expect "candidate . gelu . starter" "s makes the starter the candidate"
keys :
text 999
keys Enter
expect "line 999 is past the end: at the last line, [0-9]+" ":999 goes to the last line and says so"
search 'threadIdx'
expect "/threadIdx/: search wrapped to the top" "/ from the last line wraps to the match and says so"
if T capture-pane -e -p -t kbx | grep -E '\[4[0-7]m  8 +long long i' >/dev/null; then ok "the match's line is selected"; else no "line 8 is not selected"; fi
keys N
expect "/threadIdx/: search wrapped to the bottom" "N with one match wraps round to it"
keys /
keys Enter
expect "search cleared" "an empty search clears it"
keys n
expect "no diagnostic or finding" "then n goes through diagnostics again"
keys Q
expect "EXIT=0" "Q quits"

# ---- a wide task list shows summaries --------------------------------------------------------
start 160x40
expect "Categories" "a wide explorer opens"
expect "gelu +.* GELU applied elementwise" "the task list shows summaries when wide"
keys Q
start 100x30
expect "Categories" "a narrow explorer opens"
absent "GELU applied elementwise" "and leaves summaries out"
keys Q

# ---- the diff: ] and [ through failing cases, } and { through all; the results table ----------
rm -f "$tmp/history.db"*
start 160x40 "KBX_TUI_WORKER='$srcdir/tests/tui/fake_worker.sh' KBX_FAKE_EVENTS='$srcdir/tests/tui/quant_wrong.jsonl'"
expect "Categories" "a session with a recorded run starts"
search 'matmul_w8a8'
keys Enter 1 r
expect "verdict +wrong" "the replayed run is wrong" 30
keys Enter
expect "4/5 passed" "results: 4 of 5 cases passed"
expect "  case {18}verdict" "the case column is as wide as the longest case name (random_outlier + a gap)"
search 'outlier'
expect "/outlier/ \(n: next" "/ finds a case in the results"
keys d
expect "case random_outlier . output y . WRONG" "d opens the diff of the case found"
keys ']'
expect "no other failing case \(\} and \{ step through every case\)" "] stays on the only failing case and says how to see the others"
keys '{'
expect "case random_standard . output y" "{ goes to the previous case, passing or not"
keys '['
expect "wrapped to the last failing case" "[ from a passing case wraps to the failing one and says so"
expect "case random_outlier . output y" "and shows it"
keys '}'
expect "wrapped to the first case" "} past the last case wraps"
expect "case corner_zero_column . output y" "to the first case"
keys q q
search 'x'
keys L
expect "compile log" "L opens the compile log"
keys /
text 'nothing-here'
keys Enter
expect "no line matches /nothing-here/" "/ works in the compile log"
keys Q
expect "EXIT=0" "Q quits"

# ---- the history: column headings, Space says what it did, / in the runs, the All median -----
rm -f "$tmp/history.db"*
sed -e 's/"verdict":"wrong"/"verdict":"pass"/g' -e 's/"speedup_ref":-1.0/"speedup_ref":2.0/' \
	"$srcdir/tests/tui/quant_wrong.jsonl" >"$tmp/events.jsonl"
start 120x40 "KBX_TUI_WORKER='$srcdir/tests/tui/fake_worker.sh' KBX_FAKE_EVENTS='$tmp/events.jsonl'"
expect "Categories" "a session with replayed passing runs starts"
search 'matmul_w8a8'
keys Enter 1 r
expect "verdict +pass" "a Quantization run passes at 2x" 30
sed -e 's/"verdict":"wrong"/"verdict":"pass"/g' -e 's/"speedup_ref":-1.0/"speedup_ref":4.0/' \
	"$srcdir/tests/tui/quant_wrong.jsonl" >"$tmp/events.jsonl"
keys q q q
search '^gelu$'
keys Enter 1 r
expect "verdict +pass" "an Activation run passes at 4x" 30
keys H
expect "history by category" "H opens the history"
expect "All .* 4\.00x +3\.00x" "the All row has the median over every category (of 2x and 4x)"
expect " run +when +gpu +verdict +speedup +vs best +time" "the attempts list has column headings"
keys Left g Enter
expect " run +when +task +verdict +speedup +vs best +time" "so does the list of every run"
expect "runs . all \(2\)" "which lists both runs"
keys Space
expect "marked run #2, moved down; mark another to compare \(=\)" "Space marks, moves down and says so"
keys Space
expect "marked run #1; = compares the two marked runs" "a second mark says = compares them"
search 'matmul'
expect "/matmul/ \(n: next" "/ finds a run in the history"
keys Q
expect "EXIT=0" "Q quits"

# ---- a history longer than the runs list: the list says it stops at 500 ---------------------
python3 - "$tmp/history.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)") if r[1] not in ("id", "uid")]
names = ", ".join(cols)
for i in range(500):
    db.execute("INSERT INTO runs (%s, uid) SELECT %s, 'copy-%d' FROM runs WHERE id = 1" % (names, names, i))
db.commit()
PY
start 120x40
expect "Categories" "a history of 502 runs opens"
keys H Left g Enter
expect "runs . all \(the newest 500\)" "the runs list says it shows the newest 500"
keys G
expect "only the newest 500 runs are listed here: kbx history lists them all" "and says so at its end"
keys Q

# ---- a run against the best attempt: compared once it is recorded, from what was recorded -----
rm -f "$tmp/history.db"*
python3 - "$srcdir/tests/tui/quant_wrong.jsonl" "$tmp/events.jsonl" <<'PY'
import json, sys
out = []
for line in open(sys.argv[1]):
    ev = json.loads(line)
    if ev.get("verdict") == "wrong":
        ev["verdict"] = "pass"
    if ev["ev"] == "done":
        for row in range(2):
            ms = 0.5 * (row + 1)
            out.append(json.dumps({"ev": "perf", "row": row, "input_size": "[[%d]]" % (4096 << row),
                "cand": {"median": ms, "p20": ms * 0.999, "p80": ms * 1.001, "min": ms * 0.99, "max": ms * 1.05,
                         "mean": ms, "stddev": ms * 0.001, "n": 1000},
                "ref": {"median": 1.0, "p20": 1.0, "p80": 1.0, "min": 1.0, "max": 1.0, "mean": 1.0, "stddev": 0, "n": 100},
                "has_ref": True, "golden_ms": -1, "bytes": -1, "flops": -1, "gbps": -1, "tflops": -1, "correct": True,
                "message": None, "bw_fraction": None, "flop_fraction": None,
                "timing": {"mode": "fixed", "stop": "count", "rsd": 0.001, "hide_latency": False, "ref_is_cand": False}}))
        ev["cand_ms_sum"] = 1.5
    out.append(json.dumps(ev))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
start 120x40 "KBX_TUI_WORKER='$srcdir/tests/tui/fake_worker.sh' KBX_FAKE_EVENTS='$tmp/events.jsonl'"
expect "Categories" "a session with replayed timed runs starts"
search 'matmul_w8a8'
keys Enter 1 r
expect "verdict +pass" "a timed run passes" 30
keys Enter
expect "results . Quantization/matmul_w8a8" "its results"
absent "vs best" "the first attempt has nothing to be compared with"
keys q q r
expect "history 2 runs" "a second run, timed the same, is recorded" 30
keys Enter
expect "vs best +SAME . run #1" "and is the SAME as run #1"
keys Q
expect "EXIT=0" "Q quits"

# ---- themes: t is kept for the next start; NO_COLOR says why t does nothing; TERM=dumb -------
rm -rf "$tmp/config/kbx"
start 100x30
expect "default  \? help" "the default theme at first"
keys t
expect "theme [a-z-]+: .* \(kept for next time\)" "t switches the theme and keeps it"
chosen=$(cat "$tmp/config/kbx/theme" 2>/dev/null)
if [ -n "$chosen" ] && [ "$chosen" != default ]; then ok "the choice is saved under XDG_CONFIG_HOME ($chosen)"; else no "no theme saved in $tmp/config/kbx/theme"; fi
keys Q
start 100x30
expect "$chosen  \? help" "the next start uses the saved theme"
keys Q
start 100x30 "KBX_THEME=default"
expect "default  \? help" "KBX_THEME still wins over the saved theme"
keys Q
start 100x30 "NO_COLOR=1"
expect "no colour  \? help" "under NO_COLOR the header says there is no colour"
keys t
expect "no colours to theme: NO_COLOR is set" "t under NO_COLOR says why it changes nothing"
absent "16 colours" "and announces no colours"
keys Q
start 100x30 "TERM=dumb"
expect "terminal 'dumb' cannot move the cursor" "TERM=dumb is refused with a message"
expect "EXIT=2" "with status 2"

echo "1..$n"
exit $fail
