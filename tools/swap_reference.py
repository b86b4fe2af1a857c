#!/usr/bin/env python3
"""Make one of a task's examples its reference, keeping the former reference as an example.

usage: tools/swap_reference.py [--tasks DIR] [--stages] [--date YYYY-MM-DD] Category/name EXAMPLE

EXAMPLE is a file in the task's examples/ folder (a passing candidate, `// @kbx expect pass`),
e.g. pass_fast_sgemm.cu. Afterwards:
  - examples/pass_former_reference.cu is the former reference.cu, with `// @kbx expect pass` and
    two lines saying what it was, so that tests/gpu/gpu.sh checks it against the new reference
    (a second, independent implementation of the task); in a task swapped before, the first free
    name of pass_former_reference_2.cu, _3.cu, ... (every former reference stays an example);
  - reference.cu is the example without its expect line, under three lines that name the date and
    point at the former reference (whose header states the task's semantics in full);
  - with --stages (a Fusion task whose new reference is fused and keeps no stage buffers), task.ini
    gets `stages = examples/pass_former_reference.cu` in [task], so that kbx can still name a
    failing candidate's first wrong stage (doc/task-format.md); a task swapped before keeps the
    stages line it has when the file it names is still there.
Only swap a kernel that passed every case of the task on a GPU (tests/gpu/check_task.sh) and the
PyTorch cross-check (tools/crosscheck.py): the reference is the ground truth of every verdict.
Refuses to swap a former reference back in (undo a swap with git), and a reference with an
`untimed` launch (a reference's alone: as an example it would not compile). Writes nothing on error.
"""
import argparse
import datetime
import os
import re
import sys

FORMER = "pass_former_reference.cu"
FORMER_RE = re.compile(r"pass_former_reference(_[0-9]+)?\.cu$")


def fail(msg):
    print(f"swap_reference: {msg}", file=sys.stderr)
    sys.exit(2)


def swap(task_dir, task_id, example, stages, date):
    ref_path = os.path.join(task_dir, "reference.cu")
    ini_path = os.path.join(task_dir, "task.ini")
    ex_path = os.path.join(task_dir, "examples", example)
    if "/" in example or not example.endswith(".cu"):
        fail(f"'{example}': expected the name of a .cu file in {task_dir}/examples")
    for p in (ref_path, ini_path, ex_path):
        if not os.path.isfile(p):
            fail(f"no such file: {p}")
    if FORMER_RE.match(example):
        fail(f"{ex_path} is a former reference: this task was swapped before (undo a swap with git)")
    former_name, k = FORMER, 2
    while os.path.exists(os.path.join(task_dir, "examples", former_name)):
        former_name, k = f"pass_former_reference_{k}.cu", k + 1
    former_path = os.path.join(task_dir, "examples", former_name)
    with open(ex_path) as f:
        new = f.read().split("\n")
    if not new or not re.match(r"//\s*@kbx\s+expect\s+pass\s*$", new[0]):
        fail(f"{ex_path} line 1: expected '// @kbx expect pass' (only a passing example can be a reference)")
    with open(ref_path) as f:
        old = f.read()
    # a launch only a reference may have (kbx refuses `untimed` in a candidate, and the task may
    # judge against what it computes): the former reference could not stay as an example
    for no, line in enumerate(old.split("\n"), 1):
        if re.match(r"//\s*@kbx\s+launch\s.*\buntimed\s*$", line):
            fail(f"{ref_path} line {no}: an `untimed` launch, which only a reference may have: as an example "
                 "it would not compile (and the task may be judged against what it computes); not swapped")
    with open(ini_path) as f:
        ini = f.read().split("\n")
    kept_stages = None
    if stages:
        have = [line for line in ini if re.match(r"\s*stages\s*=", line)]
        if have:
            kept_stages = have[0].split("=", 1)[1].strip()
            if not os.path.isfile(os.path.join(task_dir, kept_stages)):
                fail(f"{ini_path} has a stages line whose file, {kept_stages}, is missing")
    if stages and kept_stages is None:
        try:
            at = next(i for i, line in enumerate(ini) if line.strip() == "[task]")
        except StopIteration:
            fail(f"{ini_path}: no [task] section")
        # after [task]'s last key line (continuation lines are indented), before the next section
        end = at + 1
        while end < len(ini) and not ini[end].startswith("["):
            end += 1
        last = end - 1
        while last > at and (not ini[last].strip() or ini[last].lstrip().startswith(";")):
            last -= 1
        ini.insert(last + 1, f"stages = examples/{former_name}")

    former = (f"// @kbx expect pass\n// The former reference, replaced on {date} by a faster kernel (reference.cu); kept as a\n"
              "// second, independent implementation that every case checks against the new one.\n" + old)
    body = new[1:]
    header = [f"// {task_id}: the reference since {date}. It is faster at the perf sizes",
              f"// than the former one, examples/{former_name}, whose header states the task's",
              "// semantics in full.",
              "//"]
    with open(former_path, "w") as f:
        f.write(former)
    with open(ref_path, "w") as f:
        f.write("\n".join(header + body))
    if stages and kept_stages is None:
        with open(ini_path, "w") as f:
            f.write("\n".join(ini))
    os.remove(ex_path)
    note = ""
    if stages:
        note = f"; task.ini keeps stages = {kept_stages}" if kept_stages else "; task.ini: stages"
    print(f"{task_id}: reference.cu <- examples/{example}; former reference -> examples/{former_name}{note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", "tasks"))
    ap.add_argument("--stages", action="store_true", help="name the former reference as the stage program")
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("task", help="Category/name")
    ap.add_argument("example", help="file name in the task's examples/ folder")
    a = ap.parse_args()
    if a.task.count("/") != 1 or ".." in a.task:
        fail(f"'{a.task}': expected Category/name")
    d = os.path.join(a.tasks, a.task)
    if not os.path.isdir(d):
        fail(f"no task folder {d}")
    swap(d, a.task, a.example, a.stages, a.date)


if __name__ == "__main__":
    main()
