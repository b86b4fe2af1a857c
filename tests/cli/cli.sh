#!/bin/sh
# CLI tests: every command on the real catalogue, bad input, and `run` without a GPU (compile
# only). Works with or without a device: where the answer differs, both are checked.
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="$tmp/history.db"
fail=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
# expect STATUS DESCRIPTION -- command...; output in $tmp/out, stderr in $tmp/err
expect() {
	want=$1; what=$2; shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$what"; else no "$what (status $got, wanted $want)"; sed 's/^/# /' "$tmp/err"; fi
}
contains() {  # file pattern description
	if grep -qE -- "$2" "$1"; then ok "$3"; else no "$3 (no /$2/ in $1)"; sed 's/^/# /' "$1" | head -20; fi
}

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
expect 0 "show --json" -- "$kbx" show Activation/gelu --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["golden_rows"]["h200"] == 16' "$tmp/out" \
	&& ok "show --json: 16 golden rows on h200" || no "show --json golden rows"
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

# an include of a host file is refused before NVRTC sees it
printf '#include "/etc/passwd"\n' | cat - "$srcdir/tasks/Activation/gelu/reference.cu" >"$tmp/include.cu"
expect 1 "run with a host include" -- "$kbx" run gelu "$tmp/include.cu" --no-perf
contains "$tmp/out" "verdict +compile_error" "host include rejected"
if grep -q "root:" "$tmp/out"; then no "no host file content in the output"; else ok "no host file content in the output"; fi

# the reference: pass with a GPU, not_run without one
"$kbx" doctor >"$tmp/doctor" 2>&1
if grep -q '^gpu  *ok' "$tmp/doctor"; then
	expect 0 "run the gelu reference (GPU)" -- "$kbx" run gelu --no-perf
	contains "$tmp/out" "verdict +pass" "reference passes"
else
	expect 1 "run the gelu reference without a GPU" -- "$kbx" run gelu --no-perf
	contains "$tmp/out" "compile +ok" "reference compiles without a GPU"
	contains "$tmp/out" "verdict +not_run" "verdict not_run without a GPU"
	contains "$tmp/out" "no CUDA device" "says there is no device"
	# a second run hits the compile cache
	expect 1 "run again" -- "$kbx" run gelu --no-perf
	contains "$tmp/out" "\(cached\)" "second run uses the compile cache"
fi
expect 2 "run of a missing file" -- "$kbx" run gelu "$tmp/nope.cu"
contains "$tmp/err" "nope.cu" "missing file named"
expect 2 "run with a bad option value" -- "$kbx" run gelu --rep abc
contains "$tmp/err" "--rep expects a non-negative number" "bad option value explained"

expect 0 "history" -- "$kbx" history
contains "$tmp/out" "^Activation " "history summarises the category"
expect 0 "history --task" -- "$kbx" history --task gelu --json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert len(a) >= 3, a' "$tmp/out" \
	&& ok "history keeps every attempt" || no "history --task lists the attempts"
expect 0 "history --category" -- "$kbx" history --category Activation
expect 2 "history of an unknown task" -- "$kbx" history --task nosuchtask

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

echo "1..$n"
exit $fail
