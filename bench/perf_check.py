#!/usr/bin/env python3
"""Every announced verdict at every perf row, in shards with a time budget (issue 22).

usage: bench/perf_check.py [--kbx ./kbx] [--tasks tasks] [--shard I/N] [--budget S] [--jobs J]
                           [--gpus 0,1,..] [--only Cat/name ...] [--bound-only] [--no-adversarial]
                           [--rows N] [--timeout S] [--launch-timeout S] [--rerun-budget S]
                           [--compare-both | --compare MODE] [--history DB] [--list] [--sources FILE]
                           [--out FILE]

The sources: each task's reference.cu (expected pass), its examples/*.cu (`// @kbx expect X`, as
tests/gpu/check_task.sh reads them, or `// @kbx perf_expect X: why` where the perf rows give
another verdict than the cases: a correct kernel too slow for kbx's launch limit) and
tests/adversarial/*.cu (`// @kbx task`, `expect`, `because` and `args`, as
tests/adversarial/README.md describes). Each runs through
`kbx run TASK FILE --json --no-history --warmup 0 --rep 0`: every case, then every perf row with
its correctness check and the check after timing, timed as briefly as kbx can. A pass example
must pass everywhere; a wrong one must still fail (and an adversarial one with a message that
matches its `because`). The sources are dealt round-robin to the shards (--shard 2/4: the second
of four), so that every shard gets large and small tasks alike; --budget stops starting sources
after S seconds and lists the rest as not run, so a shard fits one device call. --jobs runs that
many at once (round-robin over --gpus): the timings are not what is checked here. Kernels that
share one GPU run slower (separate processes take turns on it) and share its memory, so a source
that timed out or ran out of memory beside the other jobs (and was not announced to) runs again
alone at once: no new source starts, the running ones finish, the source runs with the GPU to
itself and kbx's own limits, then the others go on. That result counts (`rerun_alone`): a correct
kernel that needs more than kbx's 10 s a launch is reported as users would see it, and every
source a call ran has its final verdict. Re-runs start until --rerun-budget seconds after
--budget.
--sources FILE runs only the sources listed there, in that order (paths as printed, one per line,
`#` comments): those not run or failed in an earlier --out, say.
--compare-both runs each source twice, with --compare host and --compare gpu (issue 20): both must
get the announced verdict, and their verdicts and messages, case by case and row by row, must be
equal (tests/gpu/compare.sh's rule, over the whole catalogue). --compare MODE passes kbx run's
--compare: with `both` the host judges and the GPU compares the same device buffers at every case
and perf row its route allows, any difference an error of the run (one run per source, and the
cases too: --compare gpu compares perf rows only). --no-perf runs the cases alone (every task,
those without perf rows too; each source held to its `expect`; no adversarial kernel): with
--compare both, the GPU's comparison against the host's on every case of the catalogue in one
short call.

Output: one line per source as it finishes, then a table of the failures (source, expected, got,
message), the passing sources whose slowest timed call took over 5 s, and a summary line; exit 1
when any source got another verdict than announced. --out is rewritten after every source.
--list prints the shard's sources without running anything (no GPU needed).
"""
import argparse
import contextlib
import glob
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from outofmemory import out_of_memory  # noqa: E402 (tools/ is not a package)

# a passing source whose slowest timed call took longer than this is listed (beside other jobs the
# times run high; the alone re-run of a timeout is the verdict)
SLOW_MS = 5000


def header(path, key):
    """The value of the first `// @kbx KEY value` line of a source, or None."""
    pat = re.compile(r"^// @kbx " + key + r"\s+(.*?)\s*$")
    with open(path, errors="replace") as fh:
        for line in fh:
            m = pat.match(line)
            if m:
                return m.group(1)
    return None


def task_sources(tasks, only, bound_only, cases_only=False):
    """(task id, file, expected verdict, because regex, extra args) of the catalogue; cases_only:
    every task, and each source's verdict at the cases (`expect`)."""
    out = []
    for ini in sorted(glob.glob(os.path.join(tasks, "*", "*", "task.ini"))):
        tdir = os.path.dirname(ini)
        tid = "/".join(tdir.split(os.sep)[-2:])
        if only and tid not in only and tid.split("/")[1] not in only:
            continue
        with open(ini, errors="replace") as fh:
            text = fh.read()
        if "[perf]" not in text and not cases_only:
            continue
        if bound_only and "[tolerance.perf]" not in text:
            continue
        out.append((tid, os.path.join(tdir, "reference.cu"), "pass", None, []))
        for ex in sorted(glob.glob(os.path.join(tdir, "examples", "*.cu"))):
            # `// @kbx perf_expect VERDICT: why` overrides `expect` for a run over every perf row:
            # a correct kernel too slow for kbx's launch limit at the largest rows (its cases pass)
            want = (None if cases_only else header(ex, "perf_expect")) or header(ex, "expect")
            if want:
                out.append((tid, ex, want.split()[0].rstrip(":"), None, []))
    return out


def adversarial_sources(srcdir, only):
    out = []
    for cu in sorted(glob.glob(os.path.join(srcdir, "tests", "adversarial", "*.cu"))):
        tid, want = header(cu, "task"), header(cu, "expect")
        if not tid or not want or (only and tid not in only and tid.split("/")[1] not in only):
            continue
        args = (header(cu, "args") or "").split()
        # its own --rows (a replayer caught only after timing) stays; the rest run every row
        out.append((tid, cu, want.split()[0], header(cu, "because"), args))
    return out


def shard_of(items, spec):
    i, n = (int(x) for x in spec.split("/"))
    return [it for k, it in enumerate(items) if k % n == i - 1]


def report_key(d):
    """What --compare host and --compare gpu must agree on in a run's JSON document: verdict,
    summary message, every case's and perf row's verdict and message; not timings, logs or
    warnings. tests/gpu/compare.sh holds its runs to the same key."""
    s = d.get("summary") or {}
    return {
        "verdict": d.get("verdict"),
        "message": s.get("message"),
        "cases": [(c.get("name"), c.get("verdict"), c.get("message")) for c in d.get("cases", [])],
        "cases_passed": s.get("cases_passed"),
        "perf": [(p.get("row"), p.get("input_size"), p.get("correct"), p.get("message")) for p in d.get("perf", [])],
    }


def shared_gpu_failure(r, jobs):
    """A failure that sharing the GPU with other jobs can cause (there are other jobs): out of
    memory, or a timeout or a run that did not finish where none was announced."""
    if jobs <= 1:
        return False
    return out_of_memory(r["message"]) or (r["expected"] != "timeout" and r["got"] in ("timeout", "none"))


class Gate:
    """Sources run beside each other (`beside`); a re-run holds the GPU alone (`alone`): it waits
    for the running sources to finish, and no source starts while one waits or runs."""

    def __init__(self):
        self.cv = threading.Condition()
        self.running = self.waiting = 0
        self.held = False

    @contextlib.contextmanager
    def beside(self):
        with self.cv:
            self.cv.wait_for(lambda: not self.held and self.waiting == 0)
            self.running += 1
        try:
            yield
        finally:
            with self.cv:
                self.running -= 1
                self.cv.notify_all()

    @contextlib.contextmanager
    def alone(self):
        with self.cv:
            self.waiting += 1
            self.cv.wait_for(lambda: not self.held and self.running == 0)
            self.waiting -= 1
            self.held = True
        try:
            yield
        finally:
            with self.cv:
                self.held = False
                self.cv.notify_all()


def run_one(args, item, gpu):
    if not args.compare_both:
        return run_once(args, item, gpu, [])[0]
    host, dh = run_once(args, item, gpu, ["--compare", "host"])
    both, dg = run_once(args, item, gpu, ["--compare", "gpu"])
    both["seconds"] = round(both["seconds"] + host["seconds"], 1)
    if dh is not None and dg is not None and report_key(dh) != report_key(dg):
        kh, kg = report_key(dh), report_key(dg)
        what = next(k for k in kh if kh[k] != kg[k])
        both["ok"] = False
        both["message"] = (f"--compare host and gpu differ in {what}: host {json.dumps(kh[what])[:300]}, "
                           f"gpu {json.dumps(kg[what])[:300]}")
    elif not host["ok"]:
        both.update(ok=False, got=host["got"], message="--compare host: " + host["message"])
    return both


def run_once(args, item, gpu, more):
    """One kbx run of the source: (result dict, its JSON document or None)."""
    tid, path, want, because, extra = item
    # --history: one scratch history for every run, for its compile cache (each task's reference and
    # the GPU comparison kernel compile once, not once a source); else none at all
    cmd = [args.kbx, "run", tid, path, "--json"] + ([] if args.history else ["--no-history"]) + \
        ["--warmup", "0", "--rep", "0"] + more
    if args.no_perf:
        cmd.append("--no-perf")
    if args.compare and not args.compare_both:
        cmd += ["--compare", args.compare]
    if args.rows and "--rows" not in extra:
        cmd += ["--rows", str(args.rows)]
    if args.launch_timeout and "--launch-timeout" not in extra:
        cmd += ["--launch-timeout", str(args.launch_timeout)]
    if gpu is not None:
        cmd += ["--device", str(gpu)]
    cmd += extra
    t0 = time.monotonic()
    d = None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                           env=dict(os.environ, KBX_DB=args.history) if args.history else None)
        d = json.loads(p.stdout)
        got, msg = d.get("verdict", "none"), (d.get("summary") or {}).get("message") or ""
    except subprocess.TimeoutExpired:
        got, msg = "none", f"kbx did not finish in {args.timeout:.0f} s"
    except (ValueError, TypeError):
        d = None
        got, msg = "none", (p.stderr.strip().splitlines() or ["no output"])[-1][:300]
    ok = got == want and (not because or re.search(because, msg) is not None)
    # every perf row that missed, not only the first the summary names (a bound needs them all)
    missed = [dict(row=p.get("row"), message=(p.get("message") or "")[:240]) for p in (d or {}).get("perf", [])
              if isinstance(p, dict) and p.get("correct") is False]
    # the slowest row's timed call (one repetition here): near kbx's 10 s a launch, a correct
    # kernel is one slow machine away from a timeout
    times = [((p.get("cand") or {}).get("median") or 0) for p in (d or {}).get("perf", []) if isinstance(p, dict)]
    slowest = max([t for t in times if isinstance(t, (int, float))] or [0])
    return dict(task=tid, source=os.path.relpath(path), expected=want, got=got, ok=ok, message=msg,
                seconds=round(time.monotonic() - t0, 1), missed_rows=missed, slowest_ms=slowest), d


def main():
    srcdir = os.environ.get("KBX_SRCDIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kbx", default=os.path.join(os.environ.get("KBX_BUILDDIR", "."), "kbx"))
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", os.path.join(srcdir, "tasks")))
    ap.add_argument("--shard", default="1/1")
    ap.add_argument("--budget", type=float, default=0, help="seconds; start no source after this (0: no limit)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--gpus", default="", help="device numbers to deal the jobs to (default: kbx's)")
    ap.add_argument("--only", nargs="*", help="tasks (Cat/name or name)")
    ap.add_argument("--bound-only", action="store_true", help="only tasks that declare [tolerance.perf]")
    ap.add_argument("--no-adversarial", action="store_true")
    ap.add_argument("--rows", type=int, default=0, help="only the last N perf rows (0: all)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per source")
    ap.add_argument("--launch-timeout", type=float, default=0)
    ap.add_argument("--rerun-budget", type=float, default=150,
                    help="seconds after --budget in which sources that timed out or ran out of memory beside "
                         "other jobs may start again alone")
    ap.add_argument("--no-perf", action="store_true",
                    help="the cases only (kbx run --no-perf), every task, no adversarial kernel (their cheats "
                         "need the timed rows)")
    ap.add_argument("--compare-both", action="store_true",
                    help="run each source with --compare host and --compare gpu: both as announced, reports equal")
    ap.add_argument("--history", help="a scratch history every run shares for its compile cache (default: "
                                      "kbx run --no-history, which compiles everything, the GPU comparison "
                                      "kernel's 3 s included, in every run)")
    ap.add_argument("--compare", choices=("host", "gpu", "both"),
                    help="kbx run's --compare for every source (both: the GPU's reports held to the host's)")
    ap.add_argument("--list", action="store_true", help="print the shard's sources and stop")
    ap.add_argument("--sources", help="a file listing the sources to run (paths as printed)")
    ap.add_argument("--out", help="write the results as JSON")
    args = ap.parse_args()
    if args.compare and args.compare_both:
        ap.error("--compare and --compare-both exclude each other")
    m = re.fullmatch(r"(\d+)/(\d+)", args.shard)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        ap.error(f"bad --shard '{args.shard}': expected I/N with 1 <= I <= N")

    items = task_sources(args.tasks, args.only, args.bound_only, args.no_perf)
    if not args.no_adversarial and not args.bound_only and not args.no_perf:
        items += adversarial_sources(srcdir, args.only)
    if args.sources:
        with open(args.sources) as fh:
            order = [p for p in (ln.split("#")[0].strip() for ln in fh) if p]
        by_path = {os.path.relpath(i[1]): i for i in items}
        unknown = [p for p in order if p not in by_path]
        if unknown:
            ap.error(f"{args.sources}: not a source of the catalogue: {unknown[0]}")
        items = [by_path[p] for p in dict.fromkeys(order)]  # in the file's order
    items = shard_of(items, args.shard)
    if args.list:
        for tid, path, want, because, extra in items:
            print(f"{tid:48} {want:14} {os.path.relpath(path)}{' ' + ' '.join(extra) if extra else ''}")
        print(f"{len(items)} sources in shard {args.shard}", file=sys.stderr)
        return 0

    gpus = [int(g) for g in args.gpus.split(",") if g.strip()] or [None]
    start = time.monotonic()
    results, skipped = [], []
    done, lock = [], threading.Lock()

    def save(final):
        """--out after every source (a device call cut short keeps what ran), and at the end."""
        if not args.out:
            return
        with lock:
            rs = results if final else list(done)
            if final:
                left = [os.path.relpath(i[1]) for i in skipped]
            else:
                ran_now = {r["source"] for r in rs}
                left = [p for p in (os.path.relpath(i[1]) for i in items) if p not in ran_now]
            with open(args.out + ".tmp", "w") as fh:
                json.dump(dict(shard=args.shard, results=rs, not_run=left, complete=final), fh, indent=1)
            os.replace(args.out + ".tmp", args.out)

    gate = Gate()

    def say(line):
        """One whole line at a time: print() writes the text and its newline apart, so two jobs
        printing at once could run their lines together."""
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def job(k_item):
        k, item = k_item
        with gate.beside():  # may wait while a re-run has the GPU: the budget counts after that
            if args.budget and time.monotonic() - start > args.budget:
                skipped.append(item)
                return None
            r = run_one(args, item, gpus[k % len(gpus)])
        # out of memory or time beside the other jobs: again at once, with the GPU alone
        if not r["ok"] and shared_gpu_failure(r, args.jobs) and \
                not (args.budget and time.monotonic() - start > args.budget + args.rerun_budget):
            say(f".... {r['source']}: got {r['got']} beside other jobs ({r['message'][:120]}); again, alone")
            with gate.alone():
                r = run_one(args, item, gpus[0])
            r["rerun_alone"] = True
        say(f"{'ok  ' if r['ok'] else 'FAIL'} {r['source']}: expected {r['expected']}, got {r['got']} "
            f"({r['seconds']} s){'' if r['ok'] else ': ' + r['message'][:200]}")
        with lock:
            done.append(r)
        save(False)
        return r

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = [r for r in ex.map(job, enumerate(items)) if r]
    bad = [r for r in results if not r["ok"]]
    if bad:
        print(f"\n{'source':64} {'expected':10} {'got':14} message")
        for r in bad:
            print(f"{r['source']:64} {r['expected']:10} {r['got']:14} {r['message'][:300]}")
    print(f"\nshard {args.shard}: {len(results) - len(bad)} ok, {len(bad)} FAIL, {len(skipped)} not run (budget "
          f"{args.budget:.0f} s) of {len(items)} sources in {time.monotonic() - start:.0f} s")
    for item in skipped:
        print(f"not run: {os.path.relpath(item[1])}")
    slow = sorted((r for r in results if r["ok"] and r.get("slowest_ms", 0) > SLOW_MS), key=lambda r: -r["slowest_ms"])
    if slow:
        print(f"\npassed, but a timed call took over {SLOW_MS / 1000:.0f} s (kbx's launch limit is 10 s):")
        for r in slow:
            print(f"  {r['slowest_ms'] / 1000:7.1f} s  {r['source']}")
    save(True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
