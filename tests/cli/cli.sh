#!/bin/sh
# CLI tests: every command on the real catalogue, bad input, and `run` without a GPU (compile
# only). Works with or without a device: where the answer differs, both are checked.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

expect 0 "--help" -- "$kbx" --help
contains "$tmp/out" "usage: kbx" "--help prints usage"
expect 0 "--version" -- "$kbx" --version
contains "$tmp/out" "^kbx [0-9]+\.[0-9]+\.[0-9]+ \(" "--version prints version and revision"
expect 2 "unknown command" -- "$kbx" frobnicate
contains "$tmp/err" "unknown command 'frobnicate'" "unknown command is named"

expect 0 "list" -- "$kbx" list
contains "$tmp/out" "^Activation \([0-9]+\)" "list groups by category"
contains "$tmp/out" "^  gelu " "list shows gelu"
expect 0 "list --json" -- "$kbx" list --json
if python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
assert isinstance(a, list) and a
for t in a:
    assert t["id"] == t["category"] + "/" + t["name"], t
    assert 1 <= t["difficulty"] <= 5, t
assert any(t["id"] == "Activation/gelu" for t in a)
' "$tmp/out"; then ok "list --json has id, category, name, difficulty"; else no "list --json shape"; fi
expect 1 "list of an unknown category" -- "$kbx" list --category Nope

expect 0 "show gelu" -- "$kbx" show gelu
contains "$tmp/out" "Activation/gelu" "show names the task"
contains "$tmp/out" "x +in +f32 +\[n\]" "show lists the arguments"
contains "$tmp/out" "golden .*h200" "show lists golden tables"
contains "$tmp/out" "^python +def gelu\(input, approximate='none'\)$" "show names the Python entry and its signature"
expect 0 "show a quantization task" -- "$kbx" show Quantization/matmul_w8a8
contains "$tmp/out" "^tolerance +cosine >= 0.95, l1_relative <= 0.05, rmse <= 0.1, against the reference's result or the exact one it keeps in 'y_exact'$" "show says what the thresholds are met against"
expect 0 "show --json of a quantization task" -- "$kbx" show Quantization/matmul_w8a8 --json
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tolerance"]; assert t["exact"] == "y_exact" and t["rmse"] == 0.1, t' "$tmp/out" \
	&& ok "show --json carries the thresholds and the exact target" || no "show --json tolerance"
expect 0 "show --json" -- "$kbx" show Activation/gelu --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["golden_rows"]["h200"] == 16' "$tmp/out" \
	&& ok "show --json: 16 golden rows on h200" || no "show --json golden rows"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["python"] == {"entry": "gelu", "signature": "(input, approximate=\x27none\x27)"}, d["python"]' "$tmp/out" \
	&& ok "show --json: python entry and signature" || no "show --json python entry"
expect 0 "show an optimizer" -- "$kbx" show Optimizer/AdamW
contains "$tmp/out" "^python +def adamw_step\(param, grad, exp_avg, exp_avg_sq, step, lr=1e-3, .*weight_decay=0.01\)$" \
	"show: an entry named unlike its task, a signature joined from two lines"
expect 2 "show unknown task" -- "$kbx" show nosuchtask
contains "$tmp/err" "unknown task 'nosuchtask'" "unknown task is named"

expect 0 "starter gelu" -- "$kbx" starter gelu
contains "$tmp/out" "@kbx launch gelu_kernel<<<" "starter has a launch line"
contains "$tmp/out" "extern \"C\" __global__ void gelu_kernel\(const float \*x, float \*y, long long n, int approximate\)" \
	"starter has the signature in argument order"

# run: a compile error is reported with its line, with or without a GPU.
cat >"$tmp/broken.cu" <<'CU'
// @kbx launch k<<<cdiv(n, 256), 256>>>(x, y, n, approximate)
extern "C" __global__ void k(const float *x, float *y, long long n, int approximate)
{
	long long i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = x[i] +* ;
}
CU
expect 1 "run a broken candidate" -- "$kbx" run gelu "$tmp/broken.cu" --no-perf
contains "$tmp/out" "compile +failed" "compile failure shown"
contains "$tmp/out" "line 5" "compile error names its line"
contains "$tmp/out" "verdict +compile_error" "verdict compile_error"
expect 1 "run --json of a broken candidate" -- "$kbx" run gelu "$tmp/broken.cu" --no-perf --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "compile_error", d["verdict"]
assert any(x["line"] == 5 for x in d["compile"]["diags"]), d["compile"]
' "$tmp/out" && ok "--json carries the diagnostic line" || no "--json diagnostics"

# a launch line naming an unknown argument
sed 's/(x, y, n, approximate)/(x, q, n, approximate)/' "$srcdir/tasks/Activation/gelu/reference.cu" >"$tmp/badarg.cu"
expect 1 "run with an unknown launch argument" -- "$kbx" run gelu "$tmp/badarg.cu" --no-perf
contains "$tmp/out" "unknown argument 'q'" "unknown launch argument named"

# an untimed launch is for a task's reference: in a candidate it would be work kept out of the
# timing (a copy of a reference that has one is refused too; the reference itself is not)
sed 's/(x, y, n, approximate)$/(x, y, n, approximate) untimed/' "$srcdir/tasks/Activation/gelu/reference.cu" >"$tmp/untimed.cu"
expect 1 "run with an untimed launch" -- "$kbx" run gelu "$tmp/untimed.cu" --no-perf
contains "$tmp/out" "'untimed' is for a task's reference" "an untimed launch is refused in a candidate"
contains "$tmp/out" "verdict +compile_error" "as a compile error"
{ cat "$srcdir/tasks/Quantization/matmul_w8a8/reference.cu"; echo "// a copy"; } >"$tmp/w8a8_copy.cu"
expect 1 "run a copy of a reference with an untimed launch" -- "$kbx" run Quantization/matmul_w8a8 "$tmp/w8a8_copy.cu" --no-perf
contains "$tmp/out" "'untimed' is for a task's reference" "a copy of the reference is refused"
"$kbx" run Quantization/matmul_w8a8 "$srcdir/tasks/Quantization/matmul_w8a8/reference.cu" --no-perf >"$tmp/out" 2>&1
if grep -q "'untimed' is for" "$tmp/out"; then no "the task's own reference keeps its untimed launch"; else ok "the task's own reference keeps its untimed launch"; fi

# an include of a host file is refused before NVRTC sees it
printf '#include "/etc/passwd"\n' | cat - "$srcdir/tasks/Activation/gelu/reference.cu" >"$tmp/include.cu"
expect 1 "run with a host include" -- "$kbx" run gelu "$tmp/include.cu" --no-perf
contains "$tmp/out" "verdict +compile_error" "host include rejected"
if grep -q "root:" "$tmp/out"; then no "no host file content in the output"; else ok "no host file content in the output"; fi

# the reference: pass with a GPU, not_run without one
"$kbx" doctor >"$tmp/doctor" 2>&1
contains "$tmp/doctor" "^kept +ok +0 reference output\(s\) of perf rows, 0.0 MiB of at most 2048 MiB" \
	"doctor says what the history keeps of the reference's outputs"
if grep -q '^gpu  *ok' "$tmp/doctor"; then
	expect 0 "run the gelu reference (GPU)" -- "$kbx" run gelu --no-perf
	contains "$tmp/out" "verdict +pass" "reference passes"
	contains "$tmp/out" "^verdict .*perf sizes not checked \(--no-perf\)" "--no-perf says so in the verdict line"
	expect 0 "run --json --no-perf of the gelu reference (GPU)" -- "$kbx" run gelu --no-perf --json
	contains "$tmp/out" '"perf_unchecked": *true' "--json says perf sizes were not checked"
else
	expect 1 "run the gelu reference without a GPU" -- "$kbx" run gelu --no-perf
	contains "$tmp/out" "compile +ok" "reference compiles without a GPU"
	contains "$tmp/out" "verdict +not_run" "verdict not_run without a GPU"
	contains "$tmp/out" "no CUDA device" "says there is no device"
	# a second run hits the compile cache
	expect 1 "run again" -- "$kbx" run gelu --no-perf
	contains "$tmp/out" "\(cached\)" "second run uses the compile cache"
	expect 1 "run --compare gpu without a GPU" -- "$kbx" run gelu --no-perf --compare gpu
	contains "$tmp/out" "verdict +not_run" "--compare gpu changes nothing without a GPU"
	expect 1 "run --compare both without a GPU" -- "$kbx" run gelu --no-perf --compare both
	contains "$tmp/out" "verdict +not_run" "--compare both changes nothing without a GPU"
	if grep -q "compared on the GPU too" "$tmp/out"; then no "no GPU, yet a count of outputs compared on it"; else ok "no count of outputs compared on a GPU that is not there"; fi
fi
expect 2 "run of a missing file" -- "$kbx" run gelu "$tmp/nope.cu"
contains "$tmp/err" "nope.cu" "missing file named"
expect 2 "run with a bad option value" -- "$kbx" run gelu --rep abc
contains "$tmp/err" "--rep expects a non-negative number" "bad option value explained"
expect 2 "run with a bad --compare" -- "$kbx" run gelu --compare cpu
contains "$tmp/err" "--compare expects host, gpu or both, not 'cpu'" "bad --compare explained (run)"
expect 2 "eval with a bad --compare" -- "$kbx" eval "$tmp/nope.jsonl" --out "$tmp/evc" --compare cpu
contains "$tmp/err" "--compare expects host, gpu or both, not 'cpu'" "bad --compare explained (eval)"
expect 0 "run --help lists --compare" -- "$kbx" run --help
contains "$tmp/out" "--compare host\|gpu" "run --help documents --compare"
expect 0 "eval --help lists --compare" -- "$kbx" eval --help
contains "$tmp/out" "--compare host\|gpu" "eval --help documents --compare"

expect 0 "history" -- "$kbx" history
contains "$tmp/out" "^Activation " "history summarises the category"
expect 0 "history --task" -- "$kbx" history --task gelu --json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert len(a) >= 3, a' "$tmp/out" \
	&& ok "history keeps every attempt" || no "history --task lists the attempts"
expect 0 "history --category" -- "$kbx" history --category Activation
expect 2 "history of an unknown task" -- "$kbx" history --task nosuchtask

# vs best, from a prepared history (no GPU needed): three passing gelu runs on one GPU; the
# second 5% slower but power-capped at a lower clock, the third 20% faster than the best before it
"$kbx" --db "$tmp/vs.db" history >/dev/null 2>&1
python3 - "$tmp/vs.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def run(i, at, scale, mhz, reasons):
    db.execute("INSERT INTO runs (id, task_id, category, gpu, verdict, created_at, uid)"
               " VALUES (?, 'Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', ?, ?)", (i, at, "%032x" % i))
    for r in range(4):
        ms = scale * (r + 1)
        db.execute('INSERT INTO perf_rows (run_id, "row", input_size, cand_ms, cand_p20, cand_p80, cand_min,'
                   ' cand_n, sm_mhz, reasons, reasons_valid, clock_readings) VALUES (?, ?, ?, ?, ?, ?, ?, 1000,'
                   ' ?, ?, 1, 2)', (i, r, '{"n":%d}' % (1024 << r), ms, ms * 0.999, ms * 1.001, ms * 0.99, mhz, reasons))
run(1, 1000, 1.0, 1980, 0)
run(2, 2000, 1.05, 1755, 4)
run(3, 3000, 0.8, 1980, 0)
db.commit()
PY
expect 0 "history with the verdicts against the best attempt" -- "$kbx" --db "$tmp/vs.db" history --task gelu
contains "$tmp/out" "vs best" "history has a vs best column"
contains "$tmp/out" "^3 .* FASTER +NVIDIA H200$" "a run 20% faster than the best before it reads FASTER"
contains "$tmp/out" "^2 .* UNCLEAR +NVIDIA H200$" "a slower run at a capped clock reads UNCLEAR"
contains "$tmp/out" "^1 .* - +NVIDIA H200$" "the first run has nothing to compare"
expect 0 "history --json with the verdicts" -- "$kbx" --db "$tmp/vs.db" history --task gelu --json
python3 -c '
import json, sys
a = {r["id"]: r["vs_best"] for r in json.load(open(sys.argv[1]))}
assert a[1] is None, a
assert a[2]["verdict"] == "unclear" and a[2]["run"] == 1 and "power cap" in a[2]["why"], a
assert a[3]["verdict"] == "faster" and a[3]["run"] == 1 and "20.0% faster" in a[3]["why"], a
' "$tmp/out" && ok "history --json: vs_best with verdict, run and why" || no "history --json vs_best"

# db merge: two workers' histories into a third, each run once; merging again adds nothing
"$kbx" --db "$tmp/w0.db" run gelu --no-perf >/dev/null 2>&1
"$kbx" --db "$tmp/w0.db" run gelu --no-perf >/dev/null 2>&1
"$kbx" --db "$tmp/w1.db" run gelu --no-perf >/dev/null 2>&1
expect 0 "db merge of two histories" -- "$kbx" --db "$tmp/merged.db" db merge "$tmp/w0.db" "$tmp/w1.db"
contains "$tmp/out" "^merged 2 runs from .*w0\.db \(0 already present\)$" "merge counts the first history's runs"
contains "$tmp/out" "^merged 1 runs from .*w1\.db \(0 already present\)$" "merge counts the second history's runs"
expect 0 "db merge again" -- "$kbx" --db "$tmp/merged.db" db merge "$tmp/w1.db" "$tmp/w0.db"
contains "$tmp/out" "^merged 0 runs from .*w0\.db \(2 already present\)$" "merging again adds nothing"
expect 0 "history of the merged file" -- "$kbx" --db "$tmp/merged.db" history --task gelu --json
python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
assert len(a) == 3, a
assert all(r["task"] == "Activation/gelu" and r["verdict"] in ("pass", "not_run") for r in a), a
' "$tmp/out" && ok "the merged history has the 3 runs" || no "merged history runs"
yes 'not a history' | head -n 300 >"$tmp/junk.db"
expect 2 "db merge of a file that is not a history" -- "$kbx" --db "$tmp/m2.db" db merge "$tmp/junk.db" "$tmp/w1.db"
contains "$tmp/err" "junk\.db': not a kbx history" "a file that is not a history is named"
contains "$tmp/out" "^merged 1 runs from .*w1\.db" "the other file is still merged"
expect 2 "db merge of a missing file" -- "$kbx" --db "$tmp/m2.db" db merge "$tmp/nope.db"
contains "$tmp/err" "cannot merge '.*nope\.db'" "the missing file is named"
expect 0 "db path" -- "$kbx" --db "$tmp/merged.db" db path
contains "$tmp/out" "/merged\.db$" "db path prints --db"
expect 0 "db path of the default history" -- "$kbx" db path
contains "$tmp/out" "/history\.db$" "db path follows KBX_DB"
expect 2 "db without a subcommand" -- "$kbx" db
# db drop-outputs: the reference's kept outputs go, nothing else
python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for k in ("a", "b"):
    c.execute("INSERT INTO ref_outputs (key, task_id, bytes, data, kept_at) VALUES (?, ?, ?, ?, 1e9)",
              (k, "LinearAlgebra/det", 1048576, bytes(1048576)))
c.commit()
' "$tmp/merged.db"
expect 0 "db drop-outputs" -- "$kbx" --db "$tmp/merged.db" db drop-outputs
contains "$tmp/out" "^dropped 2 kept reference output\(s\), 2.0 MiB$" "drop-outputs says what it dropped"
python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
assert c.execute("SELECT COUNT(*) FROM ref_outputs").fetchone()[0] == 0
assert c.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3
' "$tmp/merged.db" && ok "drop-outputs leaves the runs" || no "drop-outputs left outputs or took runs"
expect 2 "db drop-outputs takes no arguments" -- "$kbx" --db "$tmp/merged.db" db drop-outputs extra
contains "$tmp/err" "takes no arguments \('extra'\)" "the stray argument is named"

# a broken task is skipped with a message naming its file and line; the others still load
mkdir -p "$tmp/tasks/Activation/bad"
cp -R "$srcdir/tasks/Activation/gelu" "$tmp/tasks/Activation/gelu"
cp -R "$srcdir/tasks/golden" "$srcdir/tasks/include" "$tmp/tasks/"
printf '[task]\nname = bad\ncategory = Activation\ndifficulty = 9\n' >"$tmp/tasks/Activation/bad/task.ini"
expect 0 "a catalogue with a broken task" -- "$kbx" --tasks "$tmp/tasks" list
contains "$tmp/err" "skipped: cannot load task 'Activation/bad'" "the broken task is named"
contains "$tmp/err" "bad/task.ini' line 4: expected 1, 2, 3, 4 or 5" "with its file, line and what was expected"
contains "$tmp/out" "^  gelu " "the other tasks still load"
expect 2 "a catalogue that does not exist" -- "$kbx" --tasks "$tmp/nowhere" list
contains "$tmp/err" "nowhere" "the missing catalogue is named"

# eval: a predictions.jsonl (fenced answers, a broken one, an unknown task), resume, shards
python3 - "$srcdir" "$tmp/pred.jsonl" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
rows = []
for t in ("Activation/gelu", "Math/add", "Reduce/sum"):
    code = open(f"{src}/tasks/{t}/reference.cu").read()
    rows.append({"file": t + ".py", "predict": "Here it is:\n```cuda\n" + code + "```\n"})
rows.append({"file": "Activation/relu.py", "predict": "```\nnot CUDA at all\n```"})
rows.append({"file": "Nope/nothing.py", "predict": "x"})
open(out, "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
expect 0 "eval of a predictions.jsonl" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/ev" --gpus 0 --no-perf --quiet
contains "$tmp/out" "^all +5 +60%" "eval prints the per-category table (3 of 5 compile)"
contains "$tmp/out" "^Activation +2 +50%" "eval counts the broken kernel as not compiled"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1] + "/metrics.json"))["items"]
s = json.load(open(sys.argv[1] + "/summary.json"))
v = {i["id"]: i for i in m}
assert len(m) == 5, m
assert v["line 4"]["verdict"] == "compile_error" and not v["line 4"]["call"], v["line 4"]
assert v["line 5"]["verdict"] == "error" and "no task named" in v["line 5"]["message"], v["line 5"]
assert v["line 1"]["call"] and v["line 1"]["task"] == "Activation/gelu", v["line 1"]
assert v["line 1"]["verdict"] in ("pass", "not_run"), v["line 1"]
assert s["overall"]["items"] == 5 and s["overall"]["call"] == 3, s
' "$tmp/ev" && ok "metrics.json and summary.json hold every item" || no "eval reports"
expect 0 "history of the evaluated runs" -- "$kbx" history --task Activation/gelu --json
python3 -c '
import json, sys
runs = [r for r in json.load(open(sys.argv[1])) if r.get("eval")]
assert runs and runs[0]["eval"].endswith("/ev") and runs[0]["device"] == 0, runs
' "$tmp/out" && ok "eval runs are recorded with their evaluation and GPU" || no "history lacks eval/device"
expect 0 "eval resumes" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/ev" --no-perf
contains "$tmp/err" "resuming: 5 of 5 items already done" "a finished evaluation is not redone"
[ "$(wc -l <"$tmp/ev/progress.jsonl")" -eq 5 ] && ok "each item recorded once" || no "progress has $(wc -l <"$tmp/ev/progress.jsonl") lines"
# --reuse-worker: one kbx worker serves every CUDA item, and the results are the same
expect 0 "eval --reuse-worker" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/evr" --no-perf --quiet --reuse-worker
python3 -c '
import json, sys
a, b = ({i["id"]: (i["verdict"], i["call"], i["message"]) for i in json.load(open(d + "/metrics.json"))["items"]}
        for d in sys.argv[1:3])
assert a == b, (a, b)
' "$tmp/ev" "$tmp/evr" && ok "--reuse-worker gives every item the same verdict" || no "--reuse-worker changed a verdict"
expect 0 "eval shard 0/2" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/s0" --shard 0/2 --no-perf --quiet
expect 0 "eval shard 1/2" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/s1" --shard 1/2 --no-perf --quiet
cat "$tmp/s0/progress.jsonl" "$tmp/s1/progress.jsonl" | python3 -c '
import json, sys
ids = sorted(json.loads(l)["id"] for l in sys.stdin)
assert ids == ["line %d" % i for i in range(1, 6)], ids
' && ok "two shards cover every item once" || no "shards overlap or miss items"
# Compiling ahead: with --compare gpu the thread also compiles the comparison kernel, which no
# worker compiles without a GPU, so the fresh history's compile cache holds one image more. Only
# the items that compile: a worker compiles those and their references itself when the thread
# has not reached them, so the other images do not depend on which of the two got there first.
head -n 3 "$tmp/pred.jsonl" >"$tmp/ahead.jsonl"
cache_size() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM compile_cache").fetchone()[0])' "$1"; }
KBX_DB="$tmp/ahead_host.db" "$kbx" eval "$tmp/ahead.jsonl" --out "$tmp/ah" --no-perf --quiet >/dev/null 2>&1
KBX_DB="$tmp/ahead_gpu.db" "$kbx" eval "$tmp/ahead.jsonl" --out "$tmp/ag" --no-perf --quiet --compare gpu >/dev/null 2>&1
h=$(cache_size "$tmp/ahead_host.db")
g=$(cache_size "$tmp/ahead_gpu.db")
[ "$h" -ge 3 ] && [ "$g" -eq $((h + 1)) ] && ok "eval compiles the comparison kernel ahead with --compare gpu" ||
	no "compile cache: $h images with --compare host, $g with --compare gpu"
expect 2 "eval with a bad shard" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/bad" --shard 2/2
contains "$tmp/err" "bad shard '2/2'" "the bad shard is named"
expect 2 "eval with a bad GPU list" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/bad" --gpus 0,0
expect 2 "eval of a missing source" -- "$kbx" eval "$tmp/none.jsonl" --out "$tmp/bad"

echo "1..$n"
exit $fail
