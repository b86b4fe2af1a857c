#!/bin/sh
# bench/eval_real.sh without a GPU (issue 20): a stand-in kbx answers `kbx eval` with a
# metrics.json for the items it was given, and the made-up KernelBenchX tree gives the golden
# sweep tasks it cannot time. The script must pick one passing example per task (or, with
# PICK=reference, the reference as a stand-in whose image differs and whose launches are all
# timed), take the slice SHARD names for both runs, say which tasks
# have none, and report the split, the gaps between items, the slowest items, the candidates far
# slower than PyTorch, the kept reference timings, the items that did not pass, the golden sweep
# and the ratio, and seconds per category: a mistake here would cost a device call.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

command -v python3 >/dev/null || { echo "# python3 missing: skipped"; exit 77; }
tasks="$tmp/tasks"
for t in Math/add Math/mul Reduce/sum Reduce/max; do
	mkdir -p "$tasks/$t/examples"
	echo '// the reference' >"$tasks/$t/reference.cu"
done
printf '// @kbx launch k<<<1, 32>>>(x, y)\n// @kbx launch exact<<<1, 32>>>(x, e) untimed \r\n' >"$tasks/Reduce/sum/reference.cu"
printf '// @kbx expect wrong\n' >"$tasks/Math/add/examples/a_wrong.cu"
printf '// @kbx expect pass\n// first passing\n' >"$tasks/Math/add/examples/b_pass.cu"
printf '// @kbx expect pass\n// second passing\n' >"$tasks/Math/add/examples/c_pass.cu"
printf '// @kbx expect pass\n' >"$tasks/Math/mul/examples/pass.cu"
printf '// @kbx expect pass\n' >"$tasks/Reduce/sum/examples/pass.cu"
printf '// @kbx expect wrong\n' >"$tasks/Reduce/max/examples/wrong.cu"
mkdir -p "$tmp/kb/tasks/Math" "$tmp/kb/tasks/Reduce" "$tmp/kb/perf"
for t in Math/add Math/mul Reduce/sum; do
	printf 'import torch\ndef %s(x):\n    return x\n' "${t#*/}" >"$tmp/kb/tasks/$t.py"
	echo "# the perf workload of ${t#*/}" >"$tmp/kb/perf/${t#*/}_perf.py"
done

# The stand-in: one record per line of the predictions, Reduce/sum wrong and 40x slower than golden.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/kbx" <<'EOF'
#!/bin/sh
[ "$1" = eval ] || exit 2
pred=$2
out=$4
mkdir -p "$out"
echo "args: $*" >"$out/args.txt"
python3 - "$pred" "$out" <<'PY'
import json, sys
pred, out = sys.argv[1:]
items = []
for k, line in enumerate(open(pred)):
    d = json.loads(line)
    task = d["file"][:-3]
    slow = task == "Reduce/sum"
    items.append({"id": f"line {k + 1}", "task": task, "exe": not slow, "verdict": "wrong" if slow else "pass",
                  "message": "perf row 3: 2 of 9 differ" if slow else "", "seconds": 10.0 + k, "started": 1.0 + 12 * k,
                  "compile_s": 0.5, "inputs_s": 0.25, "verify_s": 2.0, "timing_s": 6.0 + k,
                  "device_s": 0.125, "launch_s": 0.5, "transfer_s": 0.25,
                  "ms": 40.0 if slow else 1.0, "golden_ms": 1.0, "ref_kept_rows": 3 if k == 0 else 0,
                  "ref_outputs_kept": 4 if k == 1 else 0,
                  "source": d["predict"]})
json.dump({"items": items}, open(out + "/metrics.json", "w"))
PY
EOF
chmod +x "$tmp/bin/kbx"

# GOLDEN_GPUS: the sweep in one child per GPU, whose merge keeps a task it could not time (no torch
# here, or no GPU) as an error, so that golden.json is written on any machine
GOLDEN_GPUS=0,1 KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o" --compare gpu \
	>"$tmp/out" 2>&1
r="$tmp/o/report.txt"
contains "$tmp/out" "Reduce/max has no passing example" "a task without a passing example is named"
contains "$tmp/out" "3 tasks \(shard 0/1\) with a passing example, 1 without" "and counted"
python3 - "$tmp/o/pred.jsonl" >"$tmp/check" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["file"] for r in rows] == ["Math/add.py", "Math/mul.py", "Reduce/sum.py"], rows
assert "first passing" in rows[0]["predict"], rows[0]
PY
[ $? -eq 0 ] && ok "one example per task: the first passing one by name" || { no "pred.jsonl"; sed 's/^/# /' "$tmp/check"; }
contains "$tmp/o/eval/args.txt" "--quiet --compare gpu" "kbx eval gets the options given to the script"
contains "$r" "^kbx eval: 3 items, 2 pass, wall [0-9.]+ s$" "the items and how many passed"
contains "$r" "^split: compile 1.5 s, inputs 0.8 s, verify 6.0 s, timing 21.0 s$" "the split, summed over items"
contains "$r" "^verify's parts: opening the device 0.4 s \(driver, cuInit, context: in every fresh worker\), synchronised launches 1.5 s, copies 0.8 s; outside the split \(worker start, recording\) 3.8 s$" "verify's parts and the seconds outside the split"
contains "$r" "^items: first began at 1.0 s, last ended at 37.0 s; their seconds sum to 33.0 s, so 3.0 s between items" "the gaps between items"
contains "$r" "^slowest items: Reduce/sum 12.0 s, Math/mul 11.0 s, Math/add 10.0 s$" "the slowest items"
contains "$r" "^candidates over 5x golden PyTorch.s time \(summed over rows\): 1 items, 12.0 s of the items. seconds \(timing 8.0 s\): Reduce/sum 40x$" "the candidates far slower than PyTorch"
contains "$r" "^reference timings kept from earlier runs \(doc/timing.md\): 3 perf rows in 1 items$" "the kept reference timings"
contains "$r" "^reference outputs kept from earlier runs \(doc/timing.md\): 4 perf-row checks in 1 items$" "the kept reference outputs"
contains "$r" "^  not passed: Reduce/sum: wrong perf row 3: 2 of 9 differ$" "an item that did not pass, with its message"
contains "$r" "^golden sweep: 3 tasks, wall [0-9.]+ s \(3 failed: " "the golden sweep of the same tasks (none timed here)"
contains "$r" "^ratio: kbx eval / golden sweep = [0-9.]+$" "the ratio"
contains "$r" "^by class: passed, timed by both: 0 items, kbx 0.0 s, golden 0.0 s$" "by class: only tasks the golden sweep timed count"
contains "$r" "^by class: near PyTorch, every row's reference timing kept: 0 items" "the class of kept timings is reported"
contains "$r" "^Math +21.0 " "seconds per category"
contains "$r" "^Reduce +12.0 " "for each category"

# The classes against a golden sweep that timed every task (written beforehand; GOLDEN=0 keeps it):
# Math/add has its 3 rows' reference timings kept, Math/mul none, Reduce/sum did not pass
mkdir -p "$tmp/o6"
echo '{"wall_s": 12.0, "tasks": {"Math/add": {"seconds": 5.0, "rows": [1, 1, 1]},
 "Math/mul": {"seconds": 4.0, "rows": [1, 1]}, "Reduce/sum": {"seconds": 3.0, "rows": [1]}}}' >"$tmp/o6/golden.json"
GOLDEN=0 KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o6" >"$tmp/out" 2>&1
r6="$tmp/o6/report.txt"
contains "$r6" "^by class: passed, timed by both: 2 items, kbx 21.0 s, golden 9.0 s, 2.33x$" "by class: the passed items against their tasks' golden seconds"
contains "$r6" "^by class: near PyTorch, every row's reference timing kept: 1 items, kbx 10.0 s, golden 5.0 s, 2.00x$" "the items whose every row's reference timing was kept"
contains "$r6" "^by class: near PyTorch, none kept: 1 items, kbx 11.0 s, golden 4.0 s, 2.75x$" "and those with none kept"

# PICK=fast: a passing pass_fast_* example first, else the first passing one by name
printf '// @kbx expect pass\n// the fast one\n' >"$tasks/Math/add/examples/pass_fast_tiled.cu"
printf '// @kbx expect wrong\n' >"$tasks/Math/mul/examples/pass_fast_but_wrong.cu"
GOLDEN=0 PICK=fast KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o7" >"$tmp/out" 2>&1
contains "$tmp/out" "3 tasks \(shard 0/1\) with a passing fast, 1 without" "PICK=fast is said"
python3 - "$tmp/o7/pred.jsonl" >"$tmp/check" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["file"] for r in rows] == ["Math/add.py", "Math/mul.py", "Reduce/sum.py"], rows
assert "the fast one" in rows[0]["predict"], rows[0]
assert rows[1]["predict"] == "// @kbx expect pass\n", rows[1]
PY
[ $? -eq 0 ] && ok "PICK=fast: the passing pass_fast_ example, else the first passing one" || { no "PICK=fast"; sed 's/^/# /' "$tmp/check"; }
rm "$tasks/Math/add/examples/pass_fast_tiled.cu" "$tasks/Math/mul/examples/pass_fast_but_wrong.cu"

# SHARD: every second task of the sorted list, for kbx eval and the golden sweep alike;
# PICK=reference: each task's reference, a comment line before it, its untimed launch timed
GOLDEN=0 SHARD=1/2 PICK=reference KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o3" \
	>"$tmp/out" 2>&1
contains "$tmp/out" "2 tasks \(shard 1/2\) with a passing reference, 0 without" "SHARD and PICK=reference are said"
python3 - "$tmp/o3/pred.jsonl" "$tmp/o3/tasks.txt" >"$tmp/check" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["file"] for r in rows] == ["Math/mul.py", "Reduce/sum.py"], rows
assert open(sys.argv[2]).read().split() == ["Math/mul", "Reduce/sum"]
lines = rows[1]["predict"].split("\n")
assert lines[0].startswith("// bench/eval_real.sh: the task's reference"), lines
assert lines[1:] == ["// @kbx launch k<<<1, 32>>>(x, y)", "// @kbx launch exact<<<1, 32>>>(x, e)", ""], lines
PY
[ $? -eq 0 ] && ok "the slice's references, each a new image with every launch timed" || { no "PICK=reference"; sed 's/^/# /' "$tmp/check"; }
KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o4" --shard 0/2 >"$tmp/out" 2>&1
[ $? -eq 2 ] && ok "--shard among the options is refused (the golden sweep would run other tasks)" || no "--shard refused"
contains "$tmp/out" "use SHARD=I/N" "and the refusal says what to do"
SHARD=2/2 KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o5" >"$tmp/out" 2>&1
[ $? -ne 0 ] && contains "$tmp/out" "SHARD I/N with 0 <= I < N" "a SHARD out of range is refused" || no "bad SHARD refused"
SHARD=half KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o5" >"$tmp/out" 2>&1
[ $? -ne 0 ] && contains "$tmp/out" "got example, half" "and one that is not I/N, with what was given" || no "SHARD=half refused"

# ONLY: the tasks a change touched, for the evaluation and the golden sweep's list alike
GOLDEN=0 ONLY="Reduce/sum Math/add" PICK=reference KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" \
	"$tmp/kb" "$tmp/o6" >"$tmp/out" 2>&1
contains "$tmp/out" "2 tasks \(shard 0/1\) with a passing reference" "ONLY picks its tasks"
[ "$(cat "$tmp/o6/tasks.txt" | tr '\n' ' ')" = "Math/add Reduce/sum " ] && ok "ONLY's tasks, in the catalogue's order" ||
	no "ONLY's tasks: $(cat "$tmp/o6/tasks.txt")"
ONLY="Math/nope" KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o7" >"$tmp/out" 2>&1
[ $? -ne 0 ] && contains "$tmp/out" "ONLY names no task of .*: Math/nope" "an unknown ONLY task is refused, named" ||
	no "ONLY=Math/nope refused"

# GOLDEN=0: no golden sweep, no ratio
GOLDEN=0 KBX_TASKS="$tasks" sh "$srcdir/bench/eval_real.sh" "$tmp/bin/kbx" "$tmp/kb" "$tmp/o2" >"$tmp/out" 2>&1
lacks "$tmp/o2/report.txt" "^ratio" "GOLDEN=0 runs no golden sweep and gives no ratio"
exit $fail
