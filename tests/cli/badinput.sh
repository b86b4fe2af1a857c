#!/bin/sh
# Bad input on the command line (issue 18): binary files and NUL bytes are refused without
# echoing them, by run, export and eval, for CUDA and Python candidates alike; a source over the
# size limit (KBX_SOURCE_MAX, 1 MiB) ends at once and leaves nothing in the history; seeds are
# validated like the other numbers; `kbx help` works; a usage error is one line naming what was
# wrong; a damaged or read-only history is still read, and a damaged one says so.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

# lines OUTFILE N DESCRIPTION: the file has at most N lines
lines() {
	if [ "$(wc -l <"$1")" -le "$2" ]; then ok "$3"; else no "$3 ($(wc -l <"$1") lines)"; sed 's/^/# /' "$1" | head -5; fi
}
# clean OUTFILE DESCRIPTION: no byte of a binary in the output (NUL, ELF magic, other controls)
clean() {
	if LC_ALL=C grep -qaP '[\x00-\x08\x0e-\x1f\x7f]|ELF' "$1"; then no "$2"; else ok "$2"; fi
}
runs() {  # the runs in the history
	"$kbx" history --json --limit 0 2>/dev/null | grep -c '"task"' || true
}

# ---- binary files and NUL bytes ------------------------------------------------------------
bin=/bin/ls
[ -f "$bin" ] || bin=$(command -v sh)
expect 2 "run refuses a binary file" -- "$kbx" run Activation/gelu "$bin" --no-perf
contains "$tmp/err" "is not a text file \(it holds NUL bytes\)" "it says the file is not text"
clean "$tmp/out" "nothing of the binary on stdout"
clean "$tmp/err" "nothing of the binary on stderr"
lines "$tmp/err" 1 "in one line"

cp "$srcdir/tasks/Activation/gelu/examples/no_tail.cu" "$tmp/nul.cu"
printf '\000GARBAGE' >>"$tmp/nul.cu"
expect 2 "run refuses a kernel followed by a NUL and garbage" -- "$kbx" run Activation/gelu "$tmp/nul.cu" --no-perf
contains "$tmp/err" "'$tmp/nul.cu' is not a text file" "naming the file"
lacks "$tmp/out" "compile|verdict" "nothing was compiled"

printf 'import torch\n\000GARBAGE\n' >"$tmp/nul.py"
expect 2 "run refuses a Python candidate with a NUL" -- "$kbx" run Activation/gelu "$tmp/nul.py" --no-perf
contains "$tmp/err" "is not a text file" "with the same message"

expect 2 "export refuses a binary file" -- "$kbx" export Activation/gelu "$bin" --dir "$tmp/exp"
contains "$tmp/err" "is not a text file" "with the same message"

mkdir -p "$tmp/items"
cp "$tmp/nul.cu" "$tmp/items/gelu.cu"
printf '{"file": "Activation/gelu.py", "predict": "import torch\\u0000GARBAGE"}\n' >"$tmp/p.jsonl"
expect 0 "eval of a folder with a NUL item runs to the end" -- "$kbx" eval "$tmp/items" --out "$tmp/ev1" --quiet
contains "$tmp/ev1/metrics.json" "is not a text file" "the item is an error saying why"
clean "$tmp/ev1/metrics.json" "without its bytes"
expect 0 "eval of a jsonl with a NUL in predict runs to the end" -- "$kbx" eval "$tmp/p.jsonl" --out "$tmp/ev2" --quiet
contains "$tmp/ev2/metrics.json" "p.jsonl:1' is not a text file" "the item is an error saying why"
lacks "$tmp/ev2/metrics.json" "GARBAGE" "without its bytes"

# ---- size limit -------------------------------------------------------------------------------
before=$(runs)
awk 'BEGIN { l = "// padding padding padding padding padding padding padding padding padding padding\n";
	for (i = 0; i < 105000; i++) printf "%s", l }' >"$tmp/big.cu"
cat "$srcdir/tasks/Activation/gelu/examples/no_tail.cu" >>"$tmp/big.cu"
start=$(date +%s)
expect 2 "run refuses an 8 MB source" -- "$kbx" run Activation/gelu "$tmp/big.cu"
end=$(date +%s)
contains "$tmp/err" "'$tmp/big.cu' is 8\.[0-9] MiB: a candidate source may be at most 1 MiB" "saying its size and the limit"
if [ $((end - start)) -le 5 ]; then ok "at once ($((end - start)) s)"; else no "it took $((end - start)) s"; fi
after=$(runs)
if [ "$before" = "$after" ]; then ok "nothing of it in the history"; else no "history went from $before to $after runs"; fi
if [ -f "$KBX_DB" ] && sqlite3 -version >/dev/null 2>&1; then
	if [ "$(sqlite3 "$KBX_DB" "select count(*) from runs where length(source) > 1048576")" = 0 ]; then
		ok "no oversized source stored"; else no "an oversized source was stored"; fi
fi
biggest=$(find "$srcdir/tasks" -name '*.cu' -o -name '*.py' | xargs wc -c | sort -n | tail -2 | head -1 | awk '{print $1}')
if [ "$biggest" -lt 262144 ]; then ok "every catalogue source is far below the limit ($biggest bytes)"; else no "a catalogue source has $biggest bytes"; fi

# ---- seeds, help, usage errors ------------------------------------------------------------------
expect 2 "--seed abc fails" -- "$kbx" run Activation/gelu --seed abc --no-perf
contains "$tmp/err" "--seed expects a whole number from 0 to 18446744073709551615, not 'abc'" "saying what a seed is"
expect 2 "a seed past 2^64 fails" -- "$kbx" run Activation/gelu --seed 18446744073709551616 --no-perf
contains "$tmp/err" "not '18446744073709551616'" "naming it"
expect 2 "a negative seed fails" -- "$kbx" run Activation/gelu --seed -1 --no-perf
expect 2 "export --seed 1x fails" -- "$kbx" export Activation/gelu --seed 1x --dir "$tmp/e2"
expect 2 "eval --seed abc fails" -- "$kbx" eval "$tmp/items" --out "$tmp/ev3" --seed abc
contains "$tmp/err" "--seed expects" "the same message"
expect 2 "--allow-pytorch with a CUDA file fails" -- "$kbx" run Activation/gelu "$srcdir/tasks/Activation/gelu/reference.cu" --allow-pytorch --no-perf
contains "$tmp/err" "--allow-pytorch is for a Python file" "saying it is for Python files"
expect 2 "--retime-reference takes no value" -- "$kbx" run Activation/gelu --retime-reference=1 --no-perf
expect 0 "kbx help" -- "$kbx" help
contains "$tmp/out" "usage: kbx" "prints the usage"
expect 0 "kbx help run" -- "$kbx" help run
contains "$tmp/out" "usage: kbx run TASK" "prints run's usage"
expect 2 "kbx help of an unknown command" -- "$kbx" help frobnicate
for args in "run Activation/gelu --frob" "run" "run --seed" "show" "list x" "eval x" "--frob" "history --limit x"; do
	# shellcheck disable=SC2086
	expect 2 "usage error: kbx $args" -- "$kbx" $args
	lines "$tmp/err" 1 "  says what was wrong in one line"
done
expect 2 "an unknown option" -- "$kbx" run Activation/gelu --frob
contains "$tmp/err" "^kbx run: unknown option '--frob' \(see kbx run --help\)$" "names the option and points to --help"
expect 2 "a missing value" -- "$kbx" run Activation/gelu --seed
contains "$tmp/err" "option '--seed' needs a value" "says the value is missing"

# ---- a damaged history, a read-only one ----------------------------------------------------------
# three runs, then an index that no longer matches its table: integrity_check fails, the rows read
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
expect 0 "history of a damaged file" -- "$kbx" --db "$tmp/d.db" history
contains "$tmp/err" "history '$tmp/d.db' is damaged \(integrity check: row 1 missing from index runs_time" "says it is damaged, and why"
contains "$tmp/out" "Activation +3 " "and lists what it holds"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp/ro" "$@"; }
elif [ "$(id -u)" != 0 ]; then
	as_user() { "$@"; }
else
	as_user() { return 77; }
fi
mkdir -p "$tmp/ro"
"$kbx" --db "$tmp/ro/h.db" history >/dev/null 2>&1
python3 - "$tmp/ro/h.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO runs (id, task_id, category, gpu, verdict, created_at, uid)"
           " VALUES (1, 'Activation/gelu', 'Activation', 'NVIDIA H200', 'pass', 1000, '%032x')" % 1)
db.commit()
db.execute("PRAGMA journal_mode=DELETE")
PY
chmod 755 "$tmp" "$tmp/ro"
chmod 644 "$tmp/ro/h.db"
chmod 555 "$tmp/ro"
as_user true; st=$?
if [ $st = 77 ]; then
	echo "# skipped: no way to read as a user without write access"
else
	expect 0 "history from a read-only folder" -- as_user "$kbx" --db "$tmp/ro/h.db" history --task gelu
	contains "$tmp/out" "pass" "lists its runs"
	lacks "$tmp/err" "readonly" "without a write error"
fi
chmod 755 "$tmp/ro"

echo "1..$n"
exit $fail
