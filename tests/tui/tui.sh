#!/bin/sh
# TUI tests: the real kbx explorer inside tmux, driven with send-keys and read with capture-pane,
# against a temporary HOME and history. The path: browse -> search -> task -> starter (the same
# text as `kbx starter`) -> load a file with Tab completion -> run it (a compile error: compile
# log, Enter jumps to the line) -> results -> an example run (not_run without a GPU) -> history
# and the attempt diff -> help -> theme switch -> bracketed paste -> $EDITOR -> resize and a
# terminal too small -> quit; then SIGTERM, NO_COLOR and a broken theme file. Each exit must
# leave the terminal restored (tmux's alternate_on back to 0).
# Skips (77) without tmux.
. "${KBX_SRCDIR:-.}/tests/tui/lib.sh"
# start [env...]: a fresh explorer in a 100x30 terminal; its exit status lands on the screen
start() {
	T kill-session -t kbx 2>/dev/null
	rm -f "$tmp/pid"
	# the inner sh writes its pid and becomes the explorer (exec), so the pid is the explorer's
	T new-session -d -s kbx -x 100 -y 30 \
		"sh -c 'echo \$\$ >\"$tmp/pid\"; exec env \"\$@\"' sh HOME='$tmp/home' KBX_DB='$tmp/history.db' KBX_DRAFTS='$tmp/drafts' KBX_TUI_NO_GPU=1 KBX_TUI_NO_PERF=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 $* '$kbx' --tasks '$tasks'; echo EXIT=\$?; sleep 600"
}
# the explorer's pid (never some other kbx on the machine)
kbx_pid() { cat "$tmp/pid" 2>/dev/null; }

cat >"$tmp/broken.cu" <<'CU'
// @kbx launch k<<<cdiv(n, 256), 256>>>(x, y, n, approximate)
extern "C" __global__ void k(const float *x, float *y, long long n, int approximate)
{
	long long i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = x[i] +* ;
}
CU

# ---- browse and search --------------------------------------------------------------------
start
expect "Categories" "the browser opens"
expect "history 0 runs" "the header counts the (empty) history"
expect "Activation" "categories are listed"
if T capture-pane -e -p -t kbx | grep -qE '\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|38|48)(;[0-9;]*)?m'; then ok "the default theme draws in colour"; else no "no colours with the default theme"; fi
keys /
text '^activation/gelu$'
expect "^/\^activation/gelu\\$" "the search prompt shows the pattern"
keys Enter
expect "/\^activation/gelu\\$/ . 1 of" "search narrows the list to one task"
keys Enter
expect "task . Activation/gelu" "Enter opens the task"
expect "contract" "the task shows its contract"
expect "golden +no CUDA device" "golden availability says there is no GPU"
i=0
while [ $i -lt 12 ] && ! screen | grep -q "@kbx launch"; do keys PgDn; i=$((i + 1)); done
expect "@kbx launch" "paging down reaches the reference source"

# ---- starter, written to a file: the same text as kbx starter ------------------------------
keys s
expect "candidate . gelu . starter" "s makes the starter the candidate"
expect "gelu_kernel" "the starter is shown"
keys w C-u
text "$tmp/starter.cu"
keys Enter
expect "wrote '$tmp/starter.cu'" "w writes the candidate"
"$kbx" --tasks "$tasks" starter gelu >"$tmp/starter.want" 2>/dev/null
if cmp -s "$tmp/starter.cu" "$tmp/starter.want"; then ok "the starter equals kbx starter"; else no "the starter differs from kbx starter"; fi

# ---- load a file with Tab completion, run it: a compile error -------------------------------
keys o C-u
text "$tmp/bro"
keys Tab
expect "load file: $tmp/broken.cu" "Tab completes the path"
keys Enter
expect "candidate . gelu . $tmp/broken.cu" "the file is the candidate"
expect "x\\[i\\] \\+\\* ;" "its source is shown"
keys r
expect "compile_error" "the run ends in compile_error" 60
expect "failed .* 1 error" "the run screen shows the failed compile"
keys L
expect "compile log" "L opens the compile log"
expect "error +line 5" "the diagnostic names line 5"
keys Enter
expect "line 5: error: expected an expression" "Enter jumps to line 5 in the candidate"
expect " 5>" "line 5 is marked"
keys v
expect "COMPILE_ERROR" "v shows the results"

# ---- an example, run without a GPU ----------------------------------------------------------
keys q q
expect "task . Activation/gelu" "q goes back to the task"
keys 1
expect "candidate . gelu . example" "1 loads the first example"
keys r
expect "verdict +(not_run|wrong|pass)" "the example runs (compile only without a GPU)" 120
keys Enter
expect "(NOT_RUN|WRONG|PASS)" "Enter shows its results"

# ---- history ---------------------------------------------------------------------------------
keys H
expect "history by category" "H opens the history"
expect "every attempt at Activation/gelu \\(2\\)" "both attempts at gelu are there"
expect "compile_error" "with their verdicts"
keys =
expect "attempt #1 . attempt #2" "= compares the attempt with the one before"
expect "source +\\+[0-9]+ -[0-9]+ lines" "the comparison has a source diff"
keys q Enter
expect "run #2 from the history" "Enter shows a stored run"
keys q q

# ---- help and themes -------------------------------------------------------------------------
keys '?'
expect "help: every key" "? opens the help"
expect "show every key" "help lists the keys"
keys q
theme1=$(screen | head -1 | grep -oE '[a-z-]+  \? help' | cut -d' ' -f1)
keys t
expect "theme [a-z-]+: " "t switches the theme"
theme2=$(screen | head -1 | grep -oE '[a-z-]+  \? help' | cut -d' ' -f1)
if [ -n "$theme2" ] && [ "$theme1" != "$theme2" ]; then ok "the header names the new theme ($theme1 -> $theme2)"; else no "theme name unchanged ($theme1 -> $theme2)"; fi

# ---- bracketed paste, $EDITOR ------------------------------------------------------------------
T set-buffer -b kbxpaste "$(cat "$tmp/broken.cu")"
T paste-buffer -p -b kbxpaste -t kbx
expect "pasted 6 lines as the candidate of gelu" "a bracketed paste becomes the candidate"
expect "candidate . gelu . pasted" "the candidate screen shows it"
cat >"$tmp/editor.sh" <<'ED'
#!/bin/sh
echo "// edited by the test editor" >>"$1"
ED
chmod +x "$tmp/editor.sh"
keys Q
expect "quit with 1 unsaved candidate \(gelu\)\?" "Q asks before leaving a pasted candidate"
keys y
expect "EXIT=0" "y quits"
if alt_off; then ok "the terminal is restored after quitting"; else no "alternate screen still on after quitting"; fi
if [ -f "$tmp/drafts/Activation.gelu" ]; then ok "the pasted candidate is kept as a draft"; else no "no draft in $tmp/drafts"; fi

start "EDITOR='$tmp/editor.sh'"
expect "Categories" "a second session starts"
expect "1 unsaved draft from an earlier session is back .*gelu" "the draft is offered back"
keys / 
text '^activation/gelu$'
keys Enter Enter s
expect "the starter would replace the unsaved candidate of gelu \(draft\): discard it\?" "s asks before replacing the draft"
keys y e
expect "candidate edited" "e runs \$EDITOR and reads the result back"
keys G
expect "edited by the test editor" "the edit is in the candidate"

# ---- resize -----------------------------------------------------------------------------------
T resize-window -t kbx -x 50 -y 15
expect "terminal too small: 50x15" "a small terminal says so"
keys q Escape
sleep 0.3
if screen | grep -q "EXIT="; then no "q or Esc on the too-small screen quit"; else ok "q and Esc on the too-small screen do not quit"; fi
T resize-window -t kbx -x 60 -y 20
expect "candidate . gelu" "at 60x20 the screen is laid out"
T resize-window -t kbx -x 80 -y 24
expect "candidate . gelu" "back to 80x24 the screen returns"
T resize-window -t kbx -x 120 -y 40
expect "candidate . gelu" "a larger terminal redraws"
keys q q
expect "Categories" "back to the browser"
keys q
expect "quit with 1 unsaved candidate" "q in the browser asks about the edited starter"
keys y
expect "EXIT=0" "q in the browser quits"
if alt_off; then ok "the terminal is restored"; else no "alternate screen still on"; fi

# ---- SIGTERM -----------------------------------------------------------------------------------
rm -rf "$tmp/drafts"
start
expect "Categories" "a third session starts"
pid=$(kbx_pid)
if [ -n "$pid" ]; then kill -TERM "$pid"; fi
expect "EXIT=143" "SIGTERM ends the explorer"
if alt_off; then ok "the terminal is restored after SIGTERM"; else no "alternate screen still on after SIGTERM"; fi

# ---- Ctrl-C, and a crash ------------------------------------------------------------------------
start
expect "Categories" "a session for Ctrl-C starts"
keys C-c
expect "EXIT=130" "Ctrl-C (SIGINT) ends the explorer"
if alt_off; then ok "the terminal is restored after Ctrl-C"; else no "alternate screen still on after Ctrl-C"; fi
start
expect "Categories" "a session for a crash starts"
pid=$(kbx_pid)
if [ -n "$pid" ]; then kill -SEGV "$pid"; fi
expect "EXIT=139" "a crash (SIGSEGV) ends the explorer"
if alt_off; then ok "the terminal is restored after a crash"; else no "alternate screen still on after a crash"; fi

# ---- NO_COLOR --------------------------------------------------------------------------------
start "NO_COLOR=1"
expect "Categories" "NO_COLOR starts"
T capture-pane -e -p -t kbx >"$tmp/nocolor.txt"
if ! grep -q "Categories" "$tmp/nocolor.txt"; then
	no "NO_COLOR screen not captured"
elif grep -qE '\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38|48)(;[0-9;]*)?m' "$tmp/nocolor.txt"; then
	no "NO_COLOR still draws colours"
else
	ok "NO_COLOR draws without colours"
fi
if grep -qE '\[([0-9;]*;)?7(;[0-9;]*)?m' "$tmp/nocolor.txt"; then ok "NO_COLOR keeps reverse video for bars and selection"; else no "no reverse video under NO_COLOR"; fi
keys Q

# ---- an 8-colour terminal: the theme falls back to the 8 ANSI colours -------------------------
start "TERM=screen"
expect "Categories" "an 8-colour terminal starts"
T capture-pane -e -p -t kbx >"$tmp/8colour.txt"
if grep -qE '\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m' "$tmp/8colour.txt" &&
   ! grep -qE '\[([0-9;]*;)?(9[0-7]|10[0-7]|38;5|48;5)(;[0-9;]*)?m' "$tmp/8colour.txt"; then
	ok "only the 8 basic colours are used"
else
	no "8-colour fallback (colours beyond the 8 basic ones, or none)"
fi
keys Q

# ---- the diff screen, from a recorded wrong run (a stand-in worker replays its events) -------
rm -f "$tmp/history.db"*
start "KBX_TUI_WORKER='$srcdir/tests/tui/fake_worker.sh' KBX_FAKE_EVENTS='$srcdir/tests/tui/quant_wrong.jsonl'"
expect "Categories" "a session with a recorded run starts"
keys /
text 'matmul_w8a8'
keys Enter Enter 1 r
expect "verdict +wrong" "the replayed run is wrong"
keys Enter
expect "4/5 passed" "results: 4 of 5 cases passed"
keys G d
expect "case random_outlier . output y . WRONG 3112/4096" "d opens the diff of the failing case"
expect "first wrong stage: x_q" "the header names the first wrong stage"
expect "stage: 40 of 4096 values one step off" "and says how it differs"
expect_joined "the rounding mode differs (truncation toward zero instead of rounding to the nearest?)" \
	"in full, wrapped under it"
expect "worst elements \(16\)" "the worst elements are listed"
expect "\[17,127\] +2\.432 +0\.5021 +1\.93" "with coordinates, candidate, reference and error"
expect "8x32 tiles of 4x4" "the heatmap covers the tiles"
expect "exact .*<0\.1 .*<1 .*<10 .*>=10" "the heatmap has a legend"
expect "error histogram" "there is an error histogram"
expect "quantization lens \(z: all of it\)" "the lens's box says z shows all of it"
expect "the quantized values lean toward zero" "the lens's conclusion comes first"
keys z
expect "quantization lens \(z: back to the diff\)" "z zooms the lens below the header"
expect "cosine +0\.9312 +>= 0\.95" "the quantization lens shows a metric against its threshold"
expect "<= 1 step +[^ ]* 4 " "|error| in steps by bin"
expect "per row +.* 32" "the row profile"
expect "worst column [0-9]+: [0-9.e+]+ mean" "the worst columns named"
keys G
expect "per column" "the zoomed lens scrolls to its end"
keys q
expect "worst elements \(16\)" "q leaves the zoomed lens for the diff"
keys '>'
expect "case random_outlier . stage x_q . WRONG 40/4096" "> steps from the output to the first wrong stage's buffer"
expect "\[117\] +12 +13 +1 " "with the stage's worst elements (flat indices)"
keys '>'
expect "case random_outlier . output y . WRONG 3112/4096" "and > again back to the output"
keys '{'
expect "case random_standard" "{ goes to the previous case, passing or not"
keys Q

# ---- a broken theme file ---------------------------------------------------------------------
mkdir -p "$tmp/themes"
printf '[theme]\ncolor = yes\n[colors]\npass = purpel\n' >"$tmp/themes/broken.theme"
start "KBX_THEMES='$tmp/themes' KBX_THEME=broken"
expect "unknown colour or attribute 'purpel' for role 'pass' in '$tmp/themes/broken.theme'" "a broken theme is named"
expect "line 4; using the built-in default" "with its line, and the default theme is used"
expect "Categories" "and the explorer runs"
keys Q
expect "EXIT=0" "it quits"

echo "1..$n"
exit $fail
