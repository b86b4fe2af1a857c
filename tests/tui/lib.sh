# Sourced by the explorer's tmux tests (tui.sh, work.sh, explore.sh): where kbx and the
# catalogue are (absolute paths: the explorer runs inside tmux), a scratch folder with its own
# tmux server (a session that lives through the test, so the server never exits between
# explorers), and the checks: ok/no print "ok N - ..." / "not ok N - ..." (the screen is dumped
# on a failure); expect REGEX DESCRIPTION [SECONDS] waits for the screen to show it (expect_joined
# for text that may wrap); absent
# REGEX DESCRIPTION checks it is not there after a moment; keys sends keys, text literal text;
# alt_off says the terminal left the alternate screen. Each script defines its own start().
# Skips (77) without tmux or a kbx binary.
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux not found"; exit 77; }
[ -x "$kbx" ] || { echo "SKIP: no kbx binary at $kbx"; exit 77; }
case $kbx in /*) ;; *) kbx="$(pwd)/$kbx" ;; esac
case $srcdir in /*) ;; *) srcdir="$(pwd)/$srcdir" ;; esac
tasks=${KBX_TASKS:-$srcdir/tasks}
case $tasks in /*) ;; *) tasks="$(pwd)/$tasks" ;; esac

tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
T() { tmux -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/config"
T new-session -d -s keep "sleep 100000" || { echo "SKIP: cannot start tmux"; exit 77; }
fail=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() {
	n=$((n + 1)); echo "not ok $n - $1"; fail=1
	T capture-pane -p -t kbx 2>/dev/null | sed 's/^/# /'
}
screen() { T capture-pane -p -t kbx; }
# wait_for REGEX [SECONDS]: until the screen shows it
wait_for() {
	i=0
	limit=$(( ${2:-10} * 10 ))
	while [ $i -lt $limit ]; do
		if screen | grep -qE -- "$1"; then return 0; fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
expect() {  # expect REGEX DESCRIPTION [SECONDS]
	if wait_for "$1" "${3:-10}"; then ok "$2"; else no "$2 (no /$1/ on screen)"; fi
}
# expect_joined TEXT DESCRIPTION [SECONDS]: the screen read as one line with its white space
# dropped (a message wraps where the width ends, in a word of a long path too, as in distcheck's
# deeper folders), and so is TEXT
expect_joined() {
	i=0
	limit=$(( ${3:-10} * 10 ))
	want=$(printf '%s' "$1" | tr -d ' \n')
	while [ $i -lt $limit ]; do
		if screen | tr -d ' \n' | grep -qF -- "$want"; then ok "$2"; return; fi
		sleep 0.1
		i=$((i + 1))
	done
	no "$2 (no '$1' on screen)"
}
absent() {  # absent REGEX DESCRIPTION: not on screen after a moment
	sleep 0.4
	if screen | grep -qE -- "$1"; then no "$2 (/$1/ on screen)"; else ok "$2"; fi
}
keys() { for k in "$@"; do T send-keys -t kbx "$k"; sleep 0.15; done; }
text() { T send-keys -t kbx -l "$1"; sleep 0.2; }
alt_off() { [ "$(T display -p -t kbx '#{alternate_on}')" = 0 ]; }
