#!/bin/sh
# The explorer on a GPU: runs the wrong example of a Fusion task (attention, whose softmax stage
# goes wrong) and of two Quantization tasks (matmul_w8a8, per-tensor scales; bmm_w8a8, truncating
# rounding), and a passing example with its perf rows, from the TUI, and saves the screens
# (results, diff with worst elements, heatmap, histogram, quantization lens), and a failing Triton
# Fusion kernel run in the Python worker (its results and diff), as text under OUT (default
# ./tui-screens). Not part of make check; skips (77) without tmux or a CUDA device.
#
#   KBX_BUILDDIR=. OUT=/tmp/screens tests/tui/gpu_screens.sh
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
out=${OUT:-./tui-screens}
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux not found"; exit 77; }
"$kbx" doctor 2>/dev/null | grep -q '^gpu  *ok' || { echo "SKIP: no CUDA device"; exit 77; }
case $kbx in /*) ;; *) kbx="$(pwd)/$kbx" ;; esac
tasks=${KBX_TASKS:-$srcdir/tasks}
mkdir -p "$out"
tmp=$(mktemp -d)
S="$tmp/tmux.sock"
T() { tmux -S "$S" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
T new-session -d -s keep "sleep 100000"
T new-session -d -s k -x 100 -y 32 "env KBX_DB='$tmp/h.db' LANG=C.UTF-8 LC_ALL=C.UTF-8 '$kbx' --tasks '$tasks'; sleep 1000"
wait_for() {
	i=0
	while [ $i -lt "${2:-600}" ]; do
		T capture-pane -p -t k | grep -qE -- "$1" && return 0
		sleep 0.5
		i=$((i + 1))
	done
	echo "timed out waiting for /$1/"
	T capture-pane -p -t k
	return 1
}
keys() { for k in "$@"; do T send-keys -t k "$k"; sleep 0.4; done; }
text() { T send-keys -t k -l "$1"; sleep 0.4; }
cap() { T capture-pane -p -t k >"$out/$1.txt"; }
home() { i=0; while [ $i -lt 10 ] && ! T capture-pane -p -t k | grep -q "Categories"; do keys q; i=$((i + 1)); done; }
run_example() {  # search pattern, example key, name
	home
	keys /
	text "$1"
	keys Enter Enter
	wait_for "contract" 20 || return 1
	keys "$2"
	wait_for "candidate . " 20 || return 1
	keys r
	wait_for "verdict +[a-z_]+" 1000 || return 1
	keys Enter
	sleep 1
	cap "${3}_results"
}
fail=0
wait_for "golden|GPU" 30 || fail=1
sleep 2
cap 01_browser
run_example '^fusion/attention$' 3 02_fusion && { keys d; sleep 1; cap 02_fusion_diff; } || fail=1
run_example '^quantization/matmul_w8a8$' 3 03_quant && { keys d; sleep 1; cap 03_quant_diff; } || fail=1
keys z
sleep 1
cap 03_quant_lens   # the lens zoomed: every figure
keys q
T resize-window -t k -x 80 -y 24
sleep 1
cap 03_quant_diff_80x24
T resize-window -t k -x 100 -y 32
# a second quantization task's lens (issue 21): bmm_w8a8's truncating rounding, whose stage is x_q
run_example '^quantization/bmm_w8a8$' 5 03b_quant && { keys d; sleep 1; cap 03b_quant_diff; keys z; sleep 1;
	cap 03b_quant_lens; keys q; } || fail=1
run_example '^fusion/fused_add_gelu$' 1 04_pass && { keys G; sleep 1; cap 04_pass_perf; } || fail=1
# a failing Triton Fusion kernel (issue 16): loaded from a file, run in the Python worker, diffed
home
keys /
text '^fusion/fused_mv_sigmoid_sub$'
keys Enter Enter
if wait_for "contract" 20; then
	keys o C-u
	text "$srcdir/tests/triton/fused_mv_sigmoid_sub_wrong_stage.py"
	keys Enter
	wait_for "loaded '" 20 || fail=1
	keys r
	if wait_for "verdict +[a-z_]+" 1000; then
		keys Enter
		sleep 1
		cap 05_triton_results
		keys d
		sleep 1
		cap 05_triton_diff
	else
		fail=1
	fi
else
	fail=1
fi
keys Q
echo "screens in $out:"
ls "$out"
exit $fail
