#!/usr/bin/env python3
"""Write each task's Python entry, read from KernelBenchX, into a [python] section of its task.ini.

usage: tools/python_entries.py KERNELBENCHX_DIR [--tasks DIR] [--check] [--only Cat/name ...]

A Python candidate (KernelBenchX's format) defines the task's entry function: the function that
KernelBenchX's file DIR/tasks/<Cat>/<name>.py defines above its '#####' separator and its test
below the separator calls. For every tasks/<Cat>/<name>/task.ini this reads that file (the one
[task] mirrors names, else <Cat>/<name>.py), finds the entry and writes, as the last section of
task.ini (replacing a [python] section already there, wherever it is):

    [python]
    ; KernelBenchX's entry function (tools/python_entries.py, from Activation/gelu.py)
    entry = gelu
    signature = (input, approximate='none')

The signature is the parameter list as written in the file, annotations dropped, defaults kept
as their source text, '*', '*args' and '**kw' kept. A long one is written over indented lines
broken after a comma, which core/task.c joins with one space, so that no line reaches inih's 200
characters. A task without a KernelBenchX file takes its base task's entry (the name without a
_bf16/_fp16/_fp32/_f16 suffix) when that file exists; otherwise it gets no [python] section and
is listed on stderr with why.

--check writes nothing and exits 1 when any task.ini would change (a stale or missing section).
Exit 0 when every task has its entry, 1 when any is listed.
"""
import argparse
import ast
import os
import re
import sys

SEPARATOR = "#" * 20
WRAP = 96               # columns of a signature line before it is continued
INIH_LINE = 198         # the most characters a line may have (Debian's inih cuts at 200)
SUFFIXES = ("_bf16", "_fp16", "_fp32", "_f16")


class NoEntry(Exception):
    pass


def split_source(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    cut = text.find(SEPARATOR)
    return (text, "") if cut < 0 else (text[:cut], text[cut:])


def default_text(src, node):
    seg = ast.get_source_segment(src, node)
    if seg is None:
        seg = ast.unparse(node)
    return " ".join(seg.split())


def params(src, fn):
    """The parameters of a FunctionDef as written, without annotations."""
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(positional, defaults)):
        out.append(arg.arg if d is None else f"{arg.arg}={default_text(src, d)}")
        if a.posonlyargs and i == len(a.posonlyargs) - 1:
            out.append("/")
    if a.vararg:
        out.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        out.append("*")
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(arg.arg if d is None else f"{arg.arg}={default_text(src, d)}")
    if a.kwarg:
        out.append("**" + a.kwarg.arg)
    return out


def called_names(test_src):
    """Names called in the test code (comments do not count: some tests quote the reference)."""
    try:
        tree = ast.parse(test_src)
    except SyntaxError:
        return {m.group(1) for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", re.sub(r"#.*", "", test_src))}
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def find_entry(path, name):
    """(entry, [params]) of a KernelBenchX task file; NoEntry with why when there is none."""
    top, test = split_source(path)
    try:
        tree = ast.parse(top)
    except SyntaxError as e:
        raise NoEntry(f"{path} line {e.lineno}: {e.msg}")
    fns = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not fns:
        raise NoEntry(f"{path}: no function above the separator")
    called = called_names(test)
    tested = [f for f in fns if f.name in called]
    # the function named like the file when the test calls it, else the last one it calls
    pick = next((f for f in tested if f.name == name), tested[-1] if tested else None)
    if pick is None:
        raise NoEntry(f"{path}: the test calls none of {', '.join(f.name for f in fns)}")
    return pick.name, params(top, pick)


def signature_lines(ps):
    """'signature = (...)' over as many lines as it needs, each break after a comma."""
    lines, cur = [], "signature = ("
    for i, p in enumerate(ps):
        piece = p + (", " if i + 1 < len(ps) else ")")
        if len(cur) + len(piece.rstrip()) > WRAP and cur.strip() not in ("signature = (", ""):
            lines.append(cur.rstrip())
            cur = "  "
        cur += piece
    if not ps:
        cur += ")"
    lines.append(cur.rstrip())
    for ln in lines:
        if len(ln) > INIH_LINE:
            raise NoEntry(f"a parameter is longer than {INIH_LINE} characters: {ln[:40]}...")
    return lines


def section(entry, ps, source):
    return "\n".join(["[python]",
                      f"; KernelBenchX's entry function (tools/python_entries.py, from {source})",
                      f"entry = {entry}"] + signature_lines(ps)) + "\n"


def strip_section(text):
    """text without its [python] section (header to the next section or the end)."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        head = re.match(r"\s*\[([^\]]*)\]", line)
        if head and not line[:1].isspace():
            skipping = head.group(1).strip() == "python"
        if not skipping:
            out.append(line)
    return "".join(out).rstrip("\n") + "\n"


def mirrors(ini_text):
    m = re.search(r"^mirrors\s*=\s*(\S+\.py)\s*$", ini_text, re.M)
    return m.group(1) if m else None


def kbx_file(kbx, category, name, ini_text):
    """(path, 'Cat/name.py') of the task's KernelBenchX file, or of its base task's; NoEntry."""
    tried = []
    for rel in (mirrors(ini_text), f"{category}/{name}.py"):
        if rel and rel not in tried:
            tried.append(rel)
            if os.path.isfile(os.path.join(kbx, "tasks", rel)):
                return os.path.join(kbx, "tasks", rel), rel
    for suf in SUFFIXES:
        if name.endswith(suf):
            rel = f"{category}/{name[:-len(suf)]}.py"
            if os.path.isfile(os.path.join(kbx, "tasks", rel)):
                return os.path.join(kbx, "tasks", rel), rel
            tried.append(rel)
    raise NoEntry("no KernelBenchX file (looked for " + ", ".join(tried) + ")")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kernelbenchx", help="a KernelBenchX checkout (holds tasks/<Cat>/<name>.py)")
    ap.add_argument("--tasks", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a task.ini would change")
    ap.add_argument("--only", nargs="*", default=None, help="Cat/name ...")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.kernelbenchx, "tasks")):
        sys.exit(f"python_entries: no tasks/ folder in '{args.kernelbenchx}'")

    listed = stale = written = 0
    for category in sorted(os.listdir(args.tasks)):
        cdir = os.path.join(args.tasks, category)
        if not os.path.isdir(cdir):
            continue
        for name in sorted(os.listdir(cdir)):
            ini = os.path.join(cdir, name, "task.ini")
            if not os.path.isfile(ini) or (args.only is not None and f"{category}/{name}" not in args.only):
                continue
            with open(ini, encoding="utf-8") as fh:
                old = fh.read()
            new = strip_section(old)
            try:
                path, rel = kbx_file(args.kernelbenchx, category, name, old)
                entry, ps = find_entry(path, os.path.basename(rel)[:-3])
                new += "\n" + section(entry, ps, rel)
            except NoEntry as e:
                print(f"python_entries: {category}/{name}: no [python] section: {e}", file=sys.stderr)
                listed += 1
            if new == old:
                continue
            stale += 1
            if args.check:
                print(f"python_entries: '{ini}' has no up-to-date [python] section", file=sys.stderr)
                continue
            with open(ini, "w", encoding="utf-8") as fh:
                fh.write(new)
            written += 1
    if not args.check:
        print(f"python_entries: {written} task.ini written, {listed} without an entry")
    sys.exit(1 if listed or (args.check and stale) else 0)


if __name__ == "__main__":
    main()
