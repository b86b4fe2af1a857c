#!/bin/sh
# The explorer never loses or damages work, and bad input gets a clear answer (issue 18), driven
# in tmux as tui.sh is: `e` on a catalogue example edits a copy (the catalogue stays unchanged);
# `w` never writes into the catalogue and asks before overwriting a file; replacing a pasted
# candidate (1-9, s) asks; q, Q and ^C ask before quitting with one, and a second ^C quits; the
# draft is on disk and offered back at the next start; a binary or oversized file is refused, and
# a 1 MB source with a finding on every line loads without freezing the screen; a damaged
# history says so in the header, a read-only one is read.
# Skips (77) without tmux.
. "${KBX_SRCDIR:-.}/tests/tui/lib.sh"
# start [env...]: a fresh explorer in a 100x30 terminal; its exit status lands on the screen
start() {
	T kill-session -t kbx 2>/dev/null
	T new-session -d -s kbx -x 100 -y 30 \
		"env HOME='$tmp/home' KBX_DB='$tmp/history.db' KBX_DRAFTS='$tmp/drafts' KBX_TUI_NO_GPU=1 KBX_TUI_NO_PERF=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 $* '$kbx' --tasks '$tasks'; echo EXIT=\$?; sleep 600"
}
gelu() { keys /; text '^activation/gelu$'; keys Enter Enter; expect "task . Activation/gelu" "gelu's task screen"; }

example="$tasks/Activation/gelu/examples/no_tail.cu"
cp "$example" "$tmp/example.before"
# a snapshot of the whole catalogue, to compare with at the end (git status when it is a checkout)
( cd "$tasks" && find . -type f | sort | xargs cksum ) >"$tmp/catalogue.before"
cat >"$tmp/editor.sh" <<'ED'
#!/bin/sh
echo "// edited by the test editor" >>"$1"
ED
chmod +x "$tmp/editor.sh"

# ---- e on an example edits a copy ---------------------------------------------------------------
start "EDITOR='$tmp/editor.sh'"
expect "Categories" "the explorer starts"
gelu
keys 2
expect "candidate . gelu . example no_tail.cu" "2 loads the example"
keys e
expect "edited a copy of catalogue file '" "e says it edited a copy"
expect_joined "/Activation/gelu/examples/no_tail.cu', which is" "of the example it was asked to edit"
expect_joined "unchanged; the copy is kept as a draft" "and that the catalogue file is unchanged"
if cmp -s "$example" "$tmp/example.before"; then ok "the example file is unchanged"; else no "the example file changed"; fi
keys G
expect "edited by the test editor" "the copy has the edit"
expect "candidate . gelu . edited copy of no_tail.cu" "the candidate is the edited copy"
if [ -f "$tmp/drafts/Activation.gelu" ]; then ok "the edited copy is a draft"; else no "no draft of the edited copy"; fi

# ---- w: never into the catalogue; asks before overwriting ---------------------------------------
keys w C-u
text "$example"
keys Enter
expect_joined "is in the task catalogue, which the explorer" "w refuses a catalogue path"
if cmp -s "$example" "$tmp/example.before"; then ok "the example is still unchanged"; else no "w changed the example"; fi
echo "precious" >"$tmp/precious.cu"
keys w C-u
text "$tmp/precious.cu"
keys Enter
expect "'$tmp/precious.cu' exists: overwrite it\\?" "w asks before overwriting a file"
keys n
expect "nothing changed" "n keeps it"
if [ "$(cat "$tmp/precious.cu")" = precious ]; then ok "the file is untouched"; else no "the file was overwritten"; fi
keys w C-u
text "$tmp/precious.cu"
keys Enter y
expect "wrote '$tmp/precious.cu'" "y overwrites"
if grep -q "edited by the test editor" "$tmp/precious.cu"; then ok "with the candidate"; else no "the file lacks the candidate"; fi
if [ ! -f "$tmp/drafts/Activation.gelu" ]; then ok "a written candidate is no longer a draft"; else no "the draft stayed after w"; fi
keys Q
expect "EXIT=0" "Q quits at once when nothing is unsaved"

# ---- a pasted candidate is asked about -----------------------------------------------------------
# a history with one gelu run and its source, for y
"$kbx" --db "$tmp/history.db" history >/dev/null 2>&1
python3 - "$tmp/history.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO runs (id, task_id, category, gpu, verdict, created_at, uid, source)"
           " VALUES (1, 'Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', 1000, '%032x', '// from run 1\n')" % 1)
db.commit()
PY
start
expect "Categories" "a second session starts"
gelu
T set-buffer -b kbxpaste "$(printf '// pasted by the test\nextern "C" __global__ void k() {}\n')"
T paste-buffer -p -b kbxpaste -t kbx
expect "pasted 2 lines as the candidate of gelu" "a paste becomes the candidate"
keys q
expect "task . Activation/gelu" "back on the task"
keys 1
expect "example always_tanh.cu would replace the unsaved candidate of gelu \\(pasted\\): discard it\\?" "1 asks before replacing the pasted candidate"
keys n c
expect "pasted by the test" "n keeps the pasted candidate"
keys s
expect "the starter would replace the unsaved candidate" "s asks too"
keys Escape
expect "nothing changed" "Esc keeps it"
keys o C-u
text "$tmp/precious.cu"
keys Enter
expect "loading '$tmp/precious.cu' would replace the unsaved candidate of gelu" "o asks too"
keys n
expect "pasted by the test" "n keeps it"
keys p
expect "pasting would replace the unsaved candidate of gelu" "p asks before the typing starts"
keys n
absent "paste the candidate now" "n does not start a paste"
keys H
expect "every attempt at Activation/gelu \\(1\\)" "the history lists gelu's run"
keys y
expect "the source of run #1 would replace the unsaved candidate of gelu" "y asks too"
keys n q c
expect "pasted by the test" "n keeps it"
keys p
expect "pasting would replace" "p asks again"
keys y
expect "paste the candidate now" "y starts the paste"
text "// typed by the test"
keys C-d
expect "pasted 1 line as the candidate of gelu" "^D ends it without a second question"
expect "typed by the test" "the typed text is the candidate"
keys Q
expect "quit with 1 unsaved candidate \\(gelu\\)\\? it is kept as draft for the next start" "Q asks before quitting"
keys n
absent "EXIT=" "n stays"
keys C-c
expect "quit with 1 unsaved candidate" "^C asks too"
keys C-c
expect "EXIT=130" "a second ^C quits"
if alt_off; then ok "the terminal is restored"; else no "alternate screen still on after ^C"; fi
if grep -q "typed by the test" "$tmp/drafts/Activation.gelu" 2>/dev/null; then ok "the pasted candidate is a draft on disk"; else no "no draft on disk"; fi

start
expect "1 unsaved draft from an earlier session is back as its task's candidate: gelu" "the next start offers it back"
gelu
keys c
expect "typed by the test" "the draft is gelu's candidate"
pid=$(T display -p -t kbx '#{pane_pid}')
T kill-session -t kbx
# SIGHUP (the terminal closed) ends it; the draft stays
sleep 0.5
if grep -q "typed by the test" "$tmp/drafts/Activation.gelu" 2>/dev/null; then ok "a closed terminal keeps the draft"; else no "the draft went with the terminal"; fi
rm -rf "$tmp/drafts"

# ---- bad files in the explorer ---------------------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 19000; i++) printf "int8_t q%d = clock(); float s = scale * 127.0f;\n", i }' >"$tmp/dense.cu"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "// padding padding padding padding padding padding padding padding pad\n" }' >"$tmp/big.cu"
start
expect "Categories" "a third session starts"
gelu
keys o C-u
text "/bin/ls"
keys Enter
expect "'/bin/ls' is not a text file \\(it holds NUL bytes\\)" "a binary is refused as kbx run refuses it"
keys o C-u
text "$tmp/big.cu"
keys Enter
expect "is 6\\.[0-9] MiB: a candidate source may be at most 1 MiB" "an oversized file is refused with the limit"
keys o C-u
text "$tmp/dense.cu"
t0=$(date +%s)
keys Enter
expect "loaded '$tmp/dense.cu'" "a source under the limit with a finding on every line loads" 10
t1=$(date +%s)
keys c
expect "candidate . gelu . $tmp/dense.cu . 19000 lines" "it is the candidate"
expect "line 1: static warning 'clock_read'" "the rules' findings, scanned in a thread, arrive on their lines"
if [ $((t1 - t0)) -le 3 ]; then ok "without freezing the screen ($((t1 - t0)) s)"; else no "loading took $((t1 - t0)) s"; fi
keys G
expect "18999" "and scrolls to its end"
keys Q
expect "EXIT=0" "it quits"

# ---- a Python candidate: the Python worker, kept between runs --------------------------------------
# (a stand-in worker: the real libkbxpy.so, callbacks that answer not_run with their pid)
cat >"$tmp/cand.py" <<'PY'
import torch
import triton

def gelu(input, approximate='none'):
    return input
PY
start KBX_PYWORKER="'$srcdir/tests/data/python/stub_worker.py'"
expect "Categories" "a session for a Python candidate"
gelu
keys o C-u
text "$tmp/cand.py"
keys Enter
expect "loaded '$tmp/cand.py'" "a .py file loads"
keys c
expect "candidate . gelu . $tmp/cand.py" "it is the candidate"
expect "def gelu" "its source is shown"
keys r
expect "stub worker pid [0-9]+" "it runs in the Python worker" 30
pid1=$(screen | grep -o 'stub worker pid [0-9]*' | head -1)
keys q
keys r
expect "stub worker pid [0-9]+" "it runs again" 30
pid2=$(screen | grep -o 'stub worker pid [0-9]*' | head -1)
if [ -n "$pid1" ] && [ "$pid1" = "$pid2" ]; then ok "the same worker served both runs ($pid1)"; else no "two workers: '$pid1' then '$pid2'"; fi
keys Q
expect "EXIT=0" "it quits"

# ---- damaged and read-only histories -------------------------------------------------------------
"$kbx" --db "$tmp/d.db" history >/dev/null 2>&1
python3 - "$tmp/d.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for i in range(1, 4):
    db.execute("INSERT INTO runs (id, task_id, category, gpu, verdict, created_at, uid)"
               " VALUES (?, 'Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', ?, ?)", (i, 1000 * i, "%032x" % i))
db.commit()
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA writable_schema=ON")
db.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX runs_time ON runs(uid)' WHERE name = 'runs_time'")
db.commit()
PY
start "KBX_DB='$tmp/d.db'"
expect "history 3 runs \\(DAMAGED\\)" "a damaged history says so in the header"
expect "history '$tmp/d.db' is damaged \\(integrity check" "and why, in the message line"
keys Q

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	mkdir -p "$tmp/ro"
	"$kbx" --db "$tmp/ro/h.db" history >/dev/null 2>&1
	python3 - "$tmp/ro/h.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for i in range(1, 4):
    db.execute("INSERT INTO runs (id, task_id, category, gpu, verdict, created_at, uid)"
               " VALUES (?, 'Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', ?, ?)", (i, 1000 * i, "%032x" % i))
db.commit()
db.execute("PRAGMA journal_mode=DELETE")
PY
	chmod 755 "$tmp" "$tmp/ro" "$tmp/home"
	chmod 644 "$tmp/ro/h.db"
	chmod 555 "$tmp/ro"
	start "KBX_DB='$tmp/ro/h.db' KBX_DRAFTS='$tmp/ro/drafts' setpriv --reuid=65534 --regid=65534 --clear-groups"
	expect "history 3 runs \\(read-only\\)" "a read-only history is read (as a user who cannot write it)"
	keys Q
	expect "EXIT=0" "and the explorer quits normally"
else
	echo "# skipped: the read-only history needs root and setpriv here"
fi

now=$( cd "$tasks" && find . -type f | sort | xargs cksum )
if [ "$now" = "$(cat "$tmp/catalogue.before")" ]; then ok "the catalogue is unchanged"; else no "the catalogue changed"; fi
# (only where the catalogue is a tracked part of a checkout: not in distcheck's unpacked tarball)
if git -C "$tasks" rev-parse >/dev/null 2>&1 && [ -n "$(git -C "$tasks" ls-files -- . | head -n 1)" ]; then
	if [ -z "$(git -C "$tasks" status --porcelain -- .)" ]; then ok "git status of the catalogue is clean"; else no "git status: $(git -C "$tasks" status --porcelain -- . | head -3)"; fi
fi

echo "1..$n"
exit $fail
