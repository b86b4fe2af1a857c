#!/bin/sh
# The Triton candidates of tests/triton/ and its pending/ (README.md there), without a GPU or torch: every file
# has a well-formed header (`# @kbx task`, `expect` one of the verdicts, `because` unless it must
# pass) naming a task of the catalogue; every file parses with python3's ast and defines that
# task's entry function (its [python] entry) and a @triton.jit kernel, except the syntax-error
# candidate (expect compile_error because a syntax error), which must not parse. Skips (77)
# without python3. tests/gpu/triton_py.sh runs them on a GPU.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"
dir="$srcdir/tests/triton"

command -v python3 >/dev/null || { echo "SKIP: python3 needed to parse the candidates"; exit 77; }

# header FILE WORD: the text after `# @kbx WORD ` on the first such line
header() {
	sed -n "s|^# @kbx $2 \\(.*\\)\$|\\1|p" "$1" | head -n 1
}

count=0
syntax=0
for f in "$dir"/*.py "$dir"/pending/*.py; do
	[ -e "$f" ] || continue
	count=$((count + 1))
	name=$(basename "$f")
	task=$(header "$f" task)
	want=$(header "$f" expect)
	because=$(header "$f" because)
	case $want in
	pass | wrong | impossible_timing | compile_error | abi_error | runtime_error | timeout) ;;
	*) no "$name: expect '$want' is not a verdict"; continue ;;
	esac
	[ "$want" = pass ] || [ -n "$because" ] || no "$name: no '# @kbx because' line for expect $want"
	if ! "$kbx" show "$task" --json >"$tmp/show.json" 2>"$tmp/err"; then
		no "$name: task '$task' is not in the catalogue: $(head -n 1 "$tmp/err")"
		continue
	fi
	if [ "$want" = compile_error ] && printf '%s' "$because" | grep -q 'yntax'; then
		syntax=$((syntax + 1))
		if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" 2>/dev/null; then
			no "$name: meant as a syntax error, but it parses"
		else
			ok "$name: a syntax error, as its header says"
		fi
		continue
	fi
	if python3 - "$f" "$tmp/show.json" >"$tmp/why" 2>&1 <<'PY'
import ast, json, sys
path, show = sys.argv[1], sys.argv[2]
tree = ast.parse(open(path).read(), path)
entry = json.load(open(show))["python"]["entry"]
fns = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
assert entry in fns, f"defines no function '{entry}' (the task's entry)"
jit = [n.name for n in fns.values()
       if any("triton.jit" in ast.unparse(d) for d in n.decorator_list)]
assert jit, "no @triton.jit kernel"
PY
	then
		ok "$name: parses, defines $task's entry and a Triton kernel"
	else
		no "$name: $(tail -n 1 "$tmp/why")"
	fi
done
[ "$count" -ge 18 ] || no "only $count candidates in $dir"
[ "$syntax" -eq 1 ] || no "$syntax syntax-error candidates, expected exactly one"
exit $fail
