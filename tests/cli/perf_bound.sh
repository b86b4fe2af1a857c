#!/bin/sh
# Issue 22 without a GPU: `kbx show` names a task's perf-size bound (and its perf inputs),
# `kbx export --perf-row` refuses bad rows and rows over --max-bytes before anything runs, and
# bench/perf_check.py deals the catalogue's sources into shards that cover it exactly once.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

id=Fusion/fused_layer_norm_relu_linear
expect 0 "show $id" -- "$kbx" show "$id"
contains "$tmp/out" "^perf bound atol 8e-7 \* sqrt\(k\)" "it names the perf-size bound"
expect 0 "show --json" -- "$kbx" show "$id" --json
contains "$tmp/out" '"perf_tolerance": \{' "and gives it in JSON"
expect 0 "show a task without a bound" -- "$kbx" show Activation/gelu
lacks "$tmp/out" "^perf bound" "which names none"
# issue 20: the perf rows' inputs are shown, and keep the property the task's cases promise
sym=Normalization/symmetric_matrix_vector_norm
expect 0 "show $sym" -- "$kbx" show "$sym"
contains "$tmp/out" "^perf inputs  A=symmetric\(0, 1\)  x=uniform\(0, 1\)" "its perf inputs are a symmetric A"
expect 0 "show $sym --json" -- "$kbx" show "$sym" --json
contains "$tmp/out" '"perf_inputs": \{' "and in JSON"
expect 0 "show a task whose perf rows draw no inputs" -- "$kbx" show Random/rand --json
contains "$tmp/out" '"perf_inputs": \{\}' "an empty perf_inputs"

expect 3 "export --perf-row over --max-bytes" -- "$kbx" export "$id" --dir "$tmp/x" --perf-row 10 --max-bytes 1e9
contains "$tmp/err" "perf row 10 of '$id' needs 3.44e\+10 bytes on the host, above --max-bytes" "says how much it needs"
[ -e "$tmp/x" ] && no "and writes nothing" || ok "and writes nothing"
expect 2 "export --perf-row past the last row" -- "$kbx" export "$id" --dir "$tmp/x" --perf-row 11
contains "$tmp/err" "has 10 perf row\(s\), not a row 11" "names the rows there are"
expect 2 "export --perf-row 0" -- "$kbx" export "$id" --dir "$tmp/x" --perf-row 0
expect 2 "export --perf-row with --case" -- "$kbx" export "$id" --dir "$tmp/x" --perf-row 1 --case basic
expect 2 "export --max-bytes without --perf-row" -- "$kbx" export "$id" --dir "$tmp/x" --max-bytes 1e9

command -v python3 >/dev/null || { echo "# python3 missing: perf_check.py not checked"; exit $fail; }
pc="$srcdir/bench/perf_check.py"
expect 0 "perf_check --list" -- python3 "$pc" --kbx "$kbx" --list
all=$(grep -c "^[A-Z]" "$tmp/out")
grep "^[A-Z]" "$tmp/out" | sort >"$tmp/all"
: >"$tmp/shards"
for i in 1 2 3; do
	python3 "$pc" --kbx "$kbx" --list --shard "$i/3" | grep "^[A-Z]" >>"$tmp/shards"
done
sort "$tmp/shards" >"$tmp/shards.sorted"
if cmp -s "$tmp/all" "$tmp/shards.sorted"; then ok "three shards cover the $all sources once each"; else no "three shards cover the sources once each"; fi
contains "$tmp/all" "^Fusion/fused_layer_norm_relu_linear +pass +([^ ]*/)?tasks/Fusion/fused_layer_norm_relu_linear/reference.cu" "the reference is expected to pass"
contains "$tmp/all" "^Activation/gelu +wrong +([^ ]*/)?tests/adversarial/replay_after_warmup.cu --rows 2" "adversarial kernels keep their args"
expect 0 "perf_check --bound-only" -- python3 "$pc" --kbx "$kbx" --list --bound-only
lacks "$tmp/out" "^Activation/gelu " "lists only tasks with [tolerance.perf]"
expect 2 "perf_check --shard 4/3" -- python3 "$pc" --kbx "$kbx" --list --shard 4/3
expect 0 "perf_check --list --compare-both" -- python3 "$pc" --kbx "$kbx" --list --compare-both --only Activation/gelu
exit $fail
