#!/bin/sh
# tests/gpu/check_task.sh without a GPU (issue 21): a stand-in kbx answers `kbx run --json` for a
# made-up task, and check_task holds each example to its announced verdict, first wrong stage and
# diagnosis (the quantization lens's on an output, or the stage diff's, in any failing case), and
# prints each wrong source's triage line.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

command -v python3 >/dev/null || { echo "# python3 missing: skipped"; exit 77; }
task="$tmp/tasks/Quantization/fake"
mkdir -p "$task/examples" "$tmp/bin"
# The stand-in: its answer is the candidate file's `// json:` line (a plain pass when it has none).
cat >"$tmp/bin/kbx" <<'EOF'
#!/bin/sh
file=$3
line=$(sed -n 's|^// json: ||p' "$file")
[ -n "$line" ] || line='{"verdict": "pass", "summary": {"message": "ok"}, "cases": []}'
echo "$line"
EOF
chmod +x "$tmp/bin/kbx"
echo '// the reference' >"$task/reference.cu"
# two failing cases: the stage (and its diagnosis) in the first, a lens diagnosis in the second
two='{"verdict": "wrong", "summary": {"message": "case a: misses"}, "cases": [{"name": "a", "verdict": "wrong", "first_wrong_stage": "x_q", "stage_diagnosis": "5 of 9 values one step off: the rounding mode differs (truncation toward zero instead of rounding to the nearest?)", "outputs": [{"arg": "y", "quant": {"diagnosis": "errors spread evenly"}}]}, {"name": "b", "verdict": "wrong", "first_wrong_stage": "x_q", "outputs": [{"arg": "y", "quant": {"diagnosis": "error constant along each row: the row scales differ"}}]}]}'
cat >"$task/examples/wrong_stage_and_stage_diag.cu" <<EOF
// @kbx expect wrong
// the first wrong stage reported should be \`x_q\`, and the diagnosis should say \`truncation
// toward zero\` (split over two lines, as prose is)
// json: $two
EOF
cat >"$task/examples/wrong_lens_in_second_case.cu" <<EOF
// @kbx expect wrong
// the diagnosis should say \`the row scales differ\`
// json: $two
EOF
cat >"$task/examples/wrong_other_stage.cu" <<EOF
// @kbx expect wrong
// the first wrong stage reported should be \`w_q\`
// json: $two
EOF
cat >"$task/examples/wrong_diagnosis_nowhere.cu" <<EOF
// @kbx expect wrong
// the diagnosis should say \`do not follow\`
// json: $two
EOF
cat >"$task/examples/pass_plain.cu" <<EOF
// @kbx expect pass
EOF
# passes its cases, times out at a perf row it announces
cat >"$task/examples/pass_slow_at_perf.cu" <<EOF
// @kbx expect pass
// @kbx perf_expect timeout: one block for the whole matrix
// json: {"verdict": "timeout", "summary": {"message": "perf row 9: ran past its 10 s limit"}, "cases": []}
EOF
# passes, timed at the perf rows: its milliseconds and the reference's over the rows
cat >"$task/examples/pass_timed.cu" <<EOF
// @kbx expect pass
// json: {"verdict": "pass", "summary": {"message": "ok", "cand_ms_sum": 711.04, "ref_ms_sum": 101.2}, "cases": []}
EOF

expect 1 "check_task fails the task with a wrong announcement" -- sh "$srcdir/tests/gpu/check_task.sh" "$tmp/bin/kbx" "$task"
o="$tmp/out"
contains "$o" "^ok   reference Quantization/fake: pass$" "the reference passes"
contains "$o" "^ok   example pass_plain.cu Quantization/fake: pass$" "a passing example passes"
contains "$o" "^ok   example wrong_stage_and_stage_diag.cu .*first wrong stage x_q, expected x_q, diagnosis says 'truncation toward zero' in case a" \
	"stage and the stage diff's diagnosis, a phrase split over comment lines"
contains "$o" "^ok   example wrong_lens_in_second_case.cu .*diagnosis says 'the row scales differ' in case b" \
	"a lens diagnosis found in a later failing case, which is named"
contains "$o" "^FAIL example wrong_other_stage.cu .*first wrong stage x_q, expected w_q" "another stage fails"
contains "$o" "^FAIL example wrong_diagnosis_nowhere.cu .*diagnosis lacks 'do not follow' \(5 of 9 values one step off" \
	"a diagnosis no case says fails, showing the first case's"
contains "$o" "^       first failing case a: first wrong stage x_q \(5 of 9 values one step off.*\); y: errors spread evenly$" \
	"each wrong source's triage line: its stage, how it differs, the lens"
lacks "$o" "failing case b" "only the first failing case by default"
contains "$o" "^FAIL example pass_slow_at_perf.cu .*got timeout, expected pass" "without perf rows: the cases' verdict"
contains "$o" "^ok   example pass_timed.cu Quantization/fake: pass$" "without perf rows: no timing on the line"
KBX_GPU_PERF_ROWS=1 sh "$srcdir/tests/gpu/check_task.sh" "$tmp/bin/kbx" "$task" >"$o" 2>&1
contains "$o" "^ok   example pass_slow_at_perf.cu Quantization/fake: timeout$" "with every perf row: perf_expect's verdict"
contains "$o" "^ok   example pass_plain.cu Quantization/fake: pass$" "with every perf row: expect's, where no perf_expect"
contains "$o" "^ok   example pass_timed.cu Quantization/fake: pass \[ms 711\.0, reference 101\.2\]$" \
	"with every perf row: a passing source's milliseconds over the rows and the reference's"
KBX_TRIAGE_ALL=1 sh "$srcdir/tests/gpu/check_task.sh" "$tmp/bin/kbx" "$task" >"$o" 2>&1
contains "$o" "^       failing case b: first wrong stage x_q; y: error constant along each row: the row scales differ$" \
	"KBX_TRIAGE_ALL=1: every failing case"
exit $fail
