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
# --sources: the sources listed in a file (as --list prints them), and only those
grep "^[A-Z]" "$tmp/all" | awk 'NR == 3 || NR == 40 { print $3 }' >"$tmp/some"
printf '# a comment\n\n' >>"$tmp/some"
expect 0 "perf_check --sources" -- python3 "$pc" --kbx "$kbx" --list --sources "$tmp/some"
contains "$tmp/err" "^2 sources in shard 1/1" "keeps the two listed sources"
echo "tasks/None/nothing/reference.cu" >>"$tmp/some"
expect 2 "perf_check --sources with an unknown path" -- python3 "$pc" --kbx "$kbx" --list --sources "$tmp/some"
contains "$tmp/err" "not a source of the catalogue: tasks/None/nothing/reference.cu" "names it"
# A source that timed out beside other jobs runs again at once with the GPU to itself: a stand-in
# for kbx says timeout when another run is going on at its start or end, pass when none is; no
# other source may run while the re-run does (every start and end logs how many runs there are).
grep "^[A-Z]" "$tmp/all" | awk '$2 == "pass" && NR <= 40 { print $3 }' | head -6 >"$tmp/six"
slow=$(head -1 "$tmp/six")
big=$(sed -n 2p "$tmp/six")
mkdir "$tmp/active"
cat >"$tmp/fakekbx" <<EOF_FAKE
#!/bin/sh
st="$tmp"
EOF_FAKE
cat >>"$tmp/fakekbx" <<'EOF_FAKE'
touch "$st/active/$$"
at_start=$(ls "$st/active" | wc -l)
sleep 0.5
at_end=$(ls "$st/active" | wc -l)
rm "$st/active/$$"
echo "$3 $at_start $at_end" >>"$st/runs"
verdict=pass msg=
beside=0
{ [ "$at_start" -gt 1 ] || [ "$at_end" -gt 1 ]; } && beside=1
case $3 in
*"$SLOW"*) [ $beside = 1 ] && verdict=timeout msg="perf row 3: launch ran past its 10 s limit" ;;
*"$BIG"*) [ $beside = 1 ] && verdict=error msg="cuMemAlloc of 34359869440 bytes: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" ;;
esac
printf '{"verdict":"%s","summary":{"message":"%s"},"perf":[]}\n' "$verdict" "$msg"
EOF_FAKE
chmod +x "$tmp/fakekbx"
# a stand-in that only notes its arguments (and its history) and passes
printf '#!/bin/sh
echo "$* db=$KBX_DB" >>"%s/args"
echo %s
' "$tmp" "'{\"verdict\":\"pass\",\"summary\":{\"message\":\"\"},\"perf\":[]}'" >"$tmp/argkbx"
chmod +x "$tmp/argkbx"
SLOW=$slow BIG=$big expect 0 "perf_check --jobs 3: a timeout or out-of-memory beside other jobs is run again alone" -- \
	python3 "$pc" --kbx "$tmp/fakekbx" --jobs 3 --sources "$tmp/six" --timeout 20 --out "$tmp/pc.json"
contains "$tmp/out" "^\.\.\.\. $slow: got timeout beside other jobs" "says it runs it again"
contains "$tmp/out" "^\.\.\.\. $big: got error beside other jobs \(cuMemAlloc" "an out-of-memory one too"
contains "$tmp/out" "^shard 1/1: 6 ok, 0 FAIL" "and counts the re-run's pass"
if grep "$slow" "$tmp/runs" | tail -1 | grep -q " 1 1$"; then ok "the re-run had the GPU to itself"; else no "the re-run had the GPU to itself"; sed 's/^/# /' "$tmp/runs"; fi
contains "$tmp/pc.json" '"rerun_alone": true' "the JSON marks the re-run"
SLOW=$slow BIG=$big expect 1 "perf_check: no re-run after --budget + --rerun-budget" -- \
	python3 "$pc" --kbx "$tmp/fakekbx" --jobs 3 --sources "$tmp/six" --timeout 20 --budget 0.3 --rerun-budget 0.01
contains "$tmp/out" "^shard 1/1: 1 ok, 2 FAIL, 3 not run" "the timeout and the out-of-memory stand, the rest not run"
expect 0 "perf_check --list --compare-both" -- python3 "$pc" --kbx "$kbx" --list --compare-both --only Activation/gelu
# --no-perf: the cases alone, every task, each source held to its `expect`, no adversarial kernel
expect 0 "perf_check --list --no-perf" -- python3 "$pc" --kbx "$kbx" --list --no-perf
contains "$tmp/out" "^LinearAlgebra/qr +pass +([^ ]*/)?tasks/LinearAlgebra/qr/examples/pass_f32_householder_block.cu" \
	"an example that times out at perf sizes is held to its cases' verdict"
lacks "$tmp/out" "tests/adversarial/" "no adversarial kernel"
grep "^[A-Z]" "$tmp/out" | awk '{ print $1 }' | sort -u >"$tmp/np_tasks"
ls "$srcdir"/tasks/*/*/task.ini | awk -F/ '{ print $(NF - 2) "/" $(NF - 1) }' | sort -u >"$tmp/all_tasks"
if cmp -s "$tmp/np_tasks" "$tmp/all_tasks"; then ok "every task of the catalogue, with perf rows or not"; else no "every task of the catalogue"; diff "$tmp/np_tasks" "$tmp/all_tasks" | head -5 | sed 's/^/# /'; fi
head -2 "$tmp/six" >"$tmp/two"
expect 0 "perf_check --no-perf runs kbx run --no-perf" -- python3 "$pc" --kbx "$tmp/argkbx" --no-perf --sources "$tmp/two"
contains "$tmp/args" "--no-perf" "passes --no-perf to kbx run"
contains "$tmp/args" "--no-history" "without --history every run keeps no history"
: >"$tmp/args"
expect 0 "perf_check --history --compare both" -- python3 "$pc" --kbx "$tmp/argkbx" --no-perf --compare both \
	--history "$tmp/scratch.db" --sources "$tmp/two"
lacks "$tmp/args" "--no-history" "with --history the runs keep one"
if [ "$(grep -c "db=$tmp/scratch.db\$" "$tmp/args")" -eq 2 ]; then ok "both runs share the scratch history"; else no "both runs share the scratch history"; sed 's/^/# /' "$tmp/args"; fi
contains "$tmp/args" "--compare both" "passes --compare to kbx run"
exit $fail
