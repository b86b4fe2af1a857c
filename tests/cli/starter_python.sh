#!/bin/sh
# `kbx starter TASK --python`: for every task of the catalogue the skeleton is valid Python
# (python3's ast), defines one @triton.jit kernel and the task's entry function with exactly the
# parameters of its [python] signature (kbx show --json); the gelu skeleton has the masked load
# and store over a flat range, the allocation, the launch and the TODO; a task without [python]
# is refused with a message naming it. Skips (77) without python3: nothing else parses Python.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"
: "${KBX_TASKS:=$srcdir/tasks}"

command -v python3 >/dev/null || { echo "SKIP: python3 needed to parse the skeletons"; exit 77; }

expect 0 "starter gelu --python" -- "$kbx" starter Activation/gelu --python
contains "$tmp/out" "^import triton\.language as tl$" "imports triton.language"
contains "$tmp/out" "^@triton\.jit$" "a @triton.jit kernel"
contains "$tmp/out" "^    mask = offsets < n_elements$" "a mask over the flat range"
contains "$tmp/out" "tl\.load\(src_ptr \+ offsets, mask=mask\)" "a masked load"
contains "$tmp/out" "tl\.store\(out_ptr \+ offsets, y, mask=mask\)" "a masked store"
contains "$tmp/out" "^def gelu\(input, approximate='none'\):$" "the entry with the task's signature"
contains "$tmp/out" "out_y = torch\.empty_like\(src, dtype=torch\.float32\)" "the output allocated with its dtype"
contains "$tmp/out" "gelu_kernel\[grid\]\(src, out_y, n_elements" "the kernel launched"
contains "$tmp/out" "TODO: the math goes here" "a TODO where the math goes"
contains "$tmp/out" "^    return out_y$" "the output returned"

# every task: parses, one jit kernel, the entry with the parameters of the [python] section as
# configparser reads task.ini (not through kbx)
expect 0 "list --json" -- "$kbx" list --json
if python3 - "$kbx" "$tmp/out" "$KBX_TASKS" >"$tmp/why" 2>&1 <<'PY'
import ast, configparser, json, os, subprocess, sys
kbx, listing, root = sys.argv[1:4]
ids = [t["id"] for t in json.load(open(listing))]
bad = []
for tid in ids:
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), interpolation=None, strict=False)
    cp.read(os.path.join(root, tid, "task.ini"))
    entry = cp["python"]["entry"]
    sig = " ".join(cp["python"]["signature"].split("\n"))
    r = subprocess.run([kbx, "starter", tid, "--python"], capture_output=True, text=True)
    try:
        assert r.returncode == 0, r.stderr.strip()
        tree = ast.parse(r.stdout)
        want = ast.parse(f"def f{sig}: pass").body[0].args
        fns = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        jit = [n for n in fns.values() if any(ast.unparse(d) == "triton.jit" for d in n.decorator_list)]
        assert len(jit) == 1, f"{len(jit)} @triton.jit kernels"
        assert entry in fns, f"no function {entry}"
        got = fns[entry].args
        assert ast.dump(got) == ast.dump(want), f"parameters {ast.unparse(got)} for {sig}"
    except (AssertionError, SyntaxError) as e:
        bad.append(f"{tid}: {e}")
print(f"{len(ids)} tasks")
for b in bad:
    print(b)
sys.exit(1 if bad or len(ids) < 100 else 0)
PY
then
	ok "the Python skeletons of all $(head -n 1 "$tmp/why") parse and define their entry"
else
	no "Python skeletons"
	sed 's/^/# /' "$tmp/why" | head -20
fi

# a task without [python]: refused, naming the task and its file
mkdir -p "$tmp/tasks/Activation"
cp -R "$srcdir/tasks/Activation/gelu" "$tmp/tasks/Activation/"
sed '/^\[python\]/,$d' "$srcdir/tasks/Activation/gelu/task.ini" >"$tmp/tasks/Activation/gelu/task.ini"
expect 2 "starter --python without [python]" -- env KBX_TASKS="$tmp/tasks" "$kbx" starter gelu --python
contains "$tmp/err" "task 'Activation/gelu' names no Python entry function" "the refusal names the task"
expect 0 "the CUDA starter still works there" -- env KBX_TASKS="$tmp/tasks" "$kbx" starter gelu
expect 2 "starter --python takes no value" -- "$kbx" starter gelu --python extra

exit $fail
