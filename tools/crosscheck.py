#!/usr/bin/env python3
"""Cross-check kbx's references against KernelBenchX's PyTorch functions.

usage: tools/crosscheck.py --kbx PATH --kernelbenchx DIR [--tasks DIR] [--only Cat/name ...] [--out FILE]

For every task with a crosscheck.py next to its task.ini (and `call` not None), this exports
every correctness case with `kbx export` (kbx's inputs and its reference's outputs as .npy),
calls the KernelBenchX function (the code above the ##### line of DIR/tasks/<Cat>/<name>.py) on
the same inputs through the task's crosscheck.call, and compares each output with kbx's
reference under KernelBenchX's tolerances: rtol = atol = 5e-3 for f16/bf16, 1e-5 for f32/f64,
exact for integers and bool, NaN equal to NaN; metric thresholds (cosine, l1_relative, rmse)
where the task's [tolerance] gives them. Needs a CUDA GPU, PyTorch and NumPy.

With --perf the PyTorch function itself is run as a candidate: its code (above the separator)
is written as a KernelBenchX-format module and given to `kbx run TASK MODULE --allow-pytorch
--json --warmup 0 --rep 0` (the Python worker; --allow-pytorch lets PyTorch ops compute the
outputs and keeps the run out of the history). kbx then judges PyTorch's outputs exactly as it
judges a candidate's, at every case and at every perf row (inputs drawn on the GPU, the checks
before and after timing, [tolerance.perf] bounds, property and distribution verifiers, exact
targets): where PyTorch fails, the bound (or the reference, or the perf inputs) is wrong, not
PyTorch (issue 22). A row of the table counts the cases and perf rows that passed. --rows N
checks only the last N perf rows; --budget stops starting tasks after that many seconds (the
rest are listed as not run).
"""
import argparse
import configparser
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

from outofmemory import out_of_memory  # tools/, beside this script

SEPARATOR = "#" * 20
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def kernelbenchx_function(kbx_dir, category, name):
    path = os.path.join(kbx_dir, "tasks", category, name + ".py")
    with open(path) as fh:
        text = fh.read()
    cut = text.find(SEPARATOR)
    code = text[:cut] if cut >= 0 else text
    ns = {}
    exec(compile(code, path, "exec"), ns)
    if name in ns:
        return ns[name]
    # Some files name the function differently from the file: take the last function defined.
    fns = [v for k, v in ns.items() if callable(v) and getattr(v, "__module__", None) is None and not k.startswith("_")]
    if not fns:
        raise RuntimeError(f"{path}: no function found")
    return fns[-1]


def not_compared_reason(task_dir):
    """Why a task is not compared with PyTorch's function: the start of its crosscheck.py's
    comments after the header line (the exception, with its reason)."""
    path = os.path.join(task_dir, "crosscheck.py")
    if not os.path.exists(path):
        return "no crosscheck.py (verified another way)"
    lines = [ln[1:].strip() for ln in open(path) if ln.startswith("#")][1:]
    text = " ".join(ln for ln in lines if ln)
    if len(text) > 240:
        text = text[:240].rsplit(" ", 1)[0] + " ..."
    return "compared = False: " + (text or "(no reason given)")


def load_crosscheck(task_dir):
    """The task's crosscheck.py as (call, stochastic), or None when it has none or says
    `compared = False` (its reference is not PyTorch's function: the file says why)."""
    path = os.path.join(task_dir, "crosscheck.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("crosscheck_" + os.path.basename(task_dir), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not getattr(mod, "compared", True):
        return None
    return mod.call, getattr(mod, "stochastic", lambda a: False)


def tolerance(task_dir, dtype):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), strict=False, interpolation=None)
    cp.read(os.path.join(task_dir, "task.ini"))
    tol = dict(cp["tolerance"]) if cp.has_section("tolerance") else {}
    metric = {k: float(tol[k]) for k in ("cosine_sim", "l1_relative", "rmse") if k in tol}
    if dtype in ("f16", "bf16"):
        default = 5e-3
    elif dtype in ("f32", "f64", "c64"):
        default = 1e-5
    else:
        default = 0.0
    rtol = float(tol.get("rtol", default)) if default else 0.0
    atol = float(tol.get("atol", default)) if default else 0.0
    return rtol, atol, metric


def verifier_of(task_dir):
    """The task's [verifier] section as a dict ({} without one)."""
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), strict=False, interpolation=None)
    cp.read(os.path.join(task_dir, "task.ini"))
    return dict(cp["verifier"]) if cp.has_section("verifier") else {}


def eig_roles(verifier):
    """The [verifier] of a task checked by the eig property, or None."""
    return verifier if verifier.get("property") == "eig" else None


def eig_property(roles, a, refs, theirs):
    """PyTorch's eigenpairs judged as kbx judges a candidate's (core/verify.c, property eig): the
    residual max |A v - l v| / (|A|_F |v|), the eigenvalues as a set against kbx's reference values
    (nearest unused, distance / |A|_F) and unit-length vectors, each within tol."""
    A = a[roles["input"]].detach().cpu().double().numpy()
    lam = theirs[roles["values"]].detach().cpu().numpy().astype(np.complex128)
    V = theirs[roles["vectors"]].detach().cpu().numpy().astype(np.complex128)
    ref = refs[roles["values"]][1].astype(np.complex128).ravel()
    env = {k: v for k, v in a.items() if isinstance(v, (int, float))}
    env.update(max=max, min=min)
    tol = float(eval(roles["tol"], {"__builtins__": {}}, env))
    n = A.shape[-1]
    if n == 0:
        return True, "empty", 0.0
    na = np.linalg.norm(A) or 1.0
    vn = np.linalg.norm(V, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        res = float(np.max(np.linalg.norm(A @ V - V * lam[None, :], axis=0) / (na * vn)))
    used, match = np.zeros(n, bool), 0.0
    for r in ref:
        d = np.where(used, np.inf, np.abs(lam - r))
        i = int(np.argmin(d))
        used[i] = True
        match = max(match, float(d[i]) / na)
    norm = float(np.max(np.abs(vn - 1)))
    worst = max(res, match, norm)
    ok = bool(np.isfinite(worst) and worst <= tol)
    return ok, f"residual {res:.3g}, eigenvalue match {match:.3g}, |v| - 1 {norm:.3g} (tol {tol:.3g})", worst


def not_unique(verifier):
    """Outputs of a property-verified task that no reference can pin down (qr's Q, svd's U and Vh:
    signs, rotations, the extra columns of a complete basis): the host comparison leaves them to
    kbx's property verifier, which --perf runs."""
    roles = {"qr": ("q",), "svd": ("u", "vh")}.get(verifier.get("property"), ())
    return {verifier[r] for r in roles if r in verifier}


def property_tolerance(verifier, arg_name, a, ours):
    """For a task with the property verifier, the unique outputs it returns (the singular values of
    an SVD) are compared as core/verify.c compares them: |s - s_ref| <= tol * max(s_ref), tol the
    [verifier] expression over the case's bindings. None for any other output or task."""
    if verifier.get("property") != "svd" or verifier.get("s") != arg_name:
        return None
    env = {k: v for k, v in a.items() if isinstance(v, (int, float))}
    env.update(max=max, min=min)
    tol = float(eval(verifier["tol"], {"__builtins__": {}}, env))
    smax = float(np.nanmax(np.abs(ours))) if ours.size else 0.0
    return 0.0, tol * smax


def compare(ours, theirs, dtype, rtol, atol, metric):
    a = np.asarray(ours)
    b = np.asarray(theirs)
    if a.shape != b.shape:
        if a.size == b.size:
            b = b.reshape(a.shape)
        else:
            return False, f"shape {b.shape} vs kbx {a.shape}", float("inf")
    if dtype in ("bool",) or dtype.startswith(("i", "u")):
        bad = int(np.count_nonzero(a.astype(np.int64) != b.astype(np.int64)))
        diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
        return bad == 0, f"{bad} of {a.size} differ", float(diff.max()) if diff.size else 0.0
    a64 = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    b64 = b.astype(np.complex128 if np.iscomplexobj(b) else np.float64)
    if metric:
        fin = np.isfinite(a64) & np.isfinite(b64)
        x, y = b64[fin].ravel(), a64[fin].ravel()
        cos = float(np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y) + 1e-30))
        l1 = float(np.abs(x - y).sum() / (np.abs(y).sum() + 1e-30))
        rmse = float(np.sqrt(np.mean((x - y) ** 2))) if x.size else 0.0
        ok = cos >= metric.get("cosine_sim", -1) and l1 <= metric.get("l1_relative", 1e30) and rmse <= metric.get("rmse", 1e30)
        return ok, f"cosine {cos:.5f} l1_rel {l1:.3g} rmse {rmse:.3g}", rmse
    close = np.isclose(b64, a64, rtol=rtol, atol=atol, equal_nan=True)
    bad = int(close.size - np.count_nonzero(close))
    with np.errstate(invalid="ignore"):
        diff = np.abs(a64 - b64)
        fin = np.isfinite(diff)
        worst = float(diff[fin].max()) if fin.any() else 0.0
    return bad == 0, f"{bad} of {a.size} outside tol, max abs {worst:.3g}", worst


def kernelbenchx_module(kbx_dir, category, name, dest):
    """Write KernelBenchX's code for the task (above the separator: imports, helpers, the
    function) as a module the Python worker can load; its tests below the line stay out."""
    path = os.path.join(kbx_dir, "tasks", category, name + ".py")
    with open(path) as fh:
        text = fh.read()
    cut = text.find(SEPARATOR)
    with open(dest, "w") as fh:
        fh.write(f"# KernelBenchX's {category}/{name}, above its separator (tools/crosscheck.py --perf)\n")
        fh.write(text[:cut] if cut >= 0 else text)
        # PyTorch's f32 matmul and convolution in f32, as the references compute them (cuDNN's
        # convolutions default to TF32, about 1e-3 off at large sizes: not the task's semantics)
        fh.write("\nimport torch as _kbx_torch\n_kbx_torch.backends.cuda.matmul.allow_tf32 = False\n"
                 "_kbx_torch.backends.cudnn.allow_tf32 = False\n")


def check_task_run(args, task_dir, category, name):
    """--perf: PyTorch's function through `kbx run --allow-pytorch`, judged by kbx at every case
    and perf row. One result per case and per perf row: (what, ok or None if skipped, why, err)."""
    with tempfile.TemporaryDirectory() as tmp:
        mod = os.path.join(tmp, f"{name}.py")
        kernelbenchx_module(args.kernelbenchx, category, name, mod)
        cmd = [args.kbx, "run", f"{category}/{name}", mod, "--allow-pytorch", "--json", "--warmup", "0", "--rep", "0"]
        if args.rows not in (None, "", "all"):
            cmd += ["--rows", args.rows[5:] if args.rows.startswith("last:") else args.rows]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=max(1.0, args.timeout - 5))
    try:
        d = json.loads(out.stdout)
    except ValueError:
        return [("run", False, (out.stderr.strip() or out.stdout.strip())[-300:], float("inf"))]
    results = []
    for c in d.get("cases", []):
        v = c.get("verdict")
        ok = True if v == "pass" else None if v == "not_run" else False
        errs = [o.get("max_abs") for o in c.get("outputs", []) if isinstance(o.get("max_abs"), (int, float))]
        results.append((c.get("name", "case"), ok, (c.get("message") or v or "")[:300], max(errs or [0.0])))
    for p in d.get("perf", []):
        results.append((f"perf{p.get('row', -1) + 1}", bool(p.get("correct")), (p.get("message") or "")[:300], 0.0))
    verdict = d.get("verdict")
    if verdict not in ("pass", "not_run") and not any(r[1] is False for r in results):
        msg = ((d.get("summary") or {}).get("message") or verdict or "?")
        results.append(("verdict", False, f"{verdict}: {msg}"[:300], float("inf")))
    return results


def check_task(args, task_dir, category, name):
    found = load_crosscheck(task_dir)
    if found is None:
        return None
    if args.perf:
        return check_task_run(args, task_dir, category, name)
    fn = kernelbenchx_function(args.kernelbenchx, category, name)
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([args.kbx, "export", f"{category}/{name}", "--dir", tmp], capture_output=True, text=True)
        if out.returncode != 0:
            return [("export", False, out.stderr.strip()[-300:], float("inf"))]
        return judge_exports(tmp, task_dir, found, fn)


def judge_exports(tmp, task_dir, crosscheck, fn):
    """Call the PyTorch function on every exported case under tmp and judge its outputs against
    kbx's reference with KernelBenchX's tolerance. crosscheck: (call, stochastic) of the task's
    crosscheck.py."""
    call, stochastic = crosscheck
    verifier = verifier_of(task_dir)  # read once: eig's roles, svd's tolerance, what not to compare
    eig, skip = eig_roles(verifier), not_unique(verifier)
    results = []
    for case in sorted(os.listdir(tmp)):
        with open(os.path.join(tmp, case, "manifest.json")) as fh:
            m = json.load(fh)
        a = dict(m["bindings"])
        refs = {}
        for arg in m["args"]:
            files = arg["files"]
            if "input" in files:
                arr = np.load(os.path.join(tmp, case, files["input"]))
                t = torch.from_numpy(arr).to(DEVICE)
                if arg["dtype"] == "bf16":
                    t = t.to(torch.bfloat16)
                a[arg["name"]] = t
            if "reference" in files:
                refs[arg["name"]] = (arg["dtype"], np.load(os.path.join(tmp, case, files["reference"])))
        if stochastic(a):  # dropout or a draw from PyTorch's own generator: never elementwise equal
            results.append((case, None, "stochastic (the task's crosscheck.py)", 0.0))
            continue
        try:
            theirs = call(fn, a, torch)
        except Exception as e:  # a case PyTorch rejects is reported, not hidden
            results.append((case, False, f"PyTorch raised {type(e).__name__}: {e}"[:300], float("inf")))
            continue
        if theirs is None:  # an input PyTorch refuses (the task's crosscheck.py says why)
            results.append((case, None, "skipped by the task's crosscheck.py", 0.0))
            continue
        if eig and set(theirs) == {eig["values"], eig["vectors"]}:
            ok, why, err = eig_property(eig, a, refs, theirs)
            results.append((f"{case}:eig", ok, why, err))
            continue
        for arg_name, value in theirs.items():
            if arg_name in skip:
                continue
            dtype, ours = refs[arg_name]
            t = value.detach()
            if t.dtype == torch.bfloat16:
                t = t.float()
            rtol, atol, metric = tolerance(task_dir, dtype)
            ptol = property_tolerance(verifier, arg_name, a, ours)
            if ptol is not None:  # judged like kbx's property verifier judges it
                rtol, atol = ptol
            ok, why, err = compare(ours, t.cpu().numpy(), dtype, rtol, atol, metric)
            results.append((f"{case}:{arg_name}", ok, why, err))
    return results


def short_miss(why):
    """' (max abs 3.1e-05)' from a kbx message that gives one, else ''."""
    m = re.search(r"max abs [0-9.e+-]+|max \|[^|]+\| = [0-9.e+-]+|[a-z ]+ = [0-9.e+-]+ > tol [0-9.e+-]+", why)
    return f" ({m.group(0).strip()})" if m else ""


def run_one(args, task_id):
    """Check one task in this process and return its table row."""
    category, name = task_id.split("/", 1)
    tdir = os.path.join(args.tasks, category, name)
    try:
        res = check_task(args, tdir, category, name)
    except Exception as e:
        res = [("setup", False, f"{type(e).__name__}: {e}".splitlines()[0][:300], float("inf"))]
    if res is None:
        return (task_id, "skipped", 0, 0, 0.0, not_compared_reason(tdir))
    bad = [r for r in res if r[1] is False]
    skipped = [r for r in res if r[1] is None]
    checked = len(res) - len(skipped)
    note = "; ".join(f"{c}: {w}" for c, _, w, _ in bad[:3])
    if len(bad) > 3:  # the rest by name and size of the miss: every failing row at once for a bound
        note += "; also " + ", ".join(f"{c}{short_miss(w)}" for c, _, w, _ in bad[3:])
    if skipped:
        note = (note + "; " if note else "") + f"{len(skipped)} case(s) skipped by call() (stochastic, or refused by PyTorch)"
    worst = max([r[3] for r in res if r[1] is not None] or [0.0])
    return (task_id, "pass" if not bad and checked else "FAIL" if bad else "skipped", checked - len(bad), checked,
            worst, note)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbx", default="./kbx")
    ap.add_argument("--kernelbenchx", required=True, help="KernelBenchX checkout (holds tasks/<Cat>/<name>.py)")
    ap.add_argument("--tasks", default=os.environ.get("KBX_TASKS", "tasks"))
    ap.add_argument("--only", nargs="+", metavar="TASK", help="these tasks (Cat/name or name) only")
    ap.add_argument("--one", help=argparse.SUPPRESS)   # internal: check one task, print its row as JSON
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=120, help="seconds per task")
    ap.add_argument("--out")
    ap.add_argument("--perf", action="store_true",
                    help="run PyTorch's function as a candidate (kbx run --allow-pytorch): every case and perf row")
    ap.add_argument("--rerun-budget", type=float, default=150,
                    help="seconds after --budget in which a task that ran out of memory may start again alone")
    ap.add_argument("--rows", default="all", help='with --perf: "all" or "last:N" (the last N perf rows)')
    ap.add_argument("--budget", type=float, default=0, help="seconds; start no task after this (0: no limit)")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args, args.one)))
        return 0
    ids = []
    for category in sorted(os.listdir(args.tasks)):
        cdir = os.path.join(args.tasks, category)
        if not os.path.isdir(cdir) or category in ("include", "golden"):
            continue
        for name in sorted(os.listdir(cdir)):
            task_id = f"{category}/{name}"
            if args.only and task_id not in args.only and name not in args.only:
                continue
            if os.path.exists(os.path.join(cdir, name, "task.ini")):
                ids.append(task_id)

    # Each task in its own process: a device-side assert in PyTorch poisons its CUDA context for
    # good, and must not take the tasks after it down too.
    import time
    start = time.monotonic()

    def one(task_id, rerun=False):
        if args.budget and time.monotonic() - start > args.budget + (args.rerun_budget if rerun else 0):
            return (task_id, "not run", 0, 0, 0.0, f"time budget of {args.budget:.0f} s spent")
        cmd = [sys.executable, os.path.abspath(__file__), "--kbx", args.kbx, "--kernelbenchx", args.kernelbenchx,
               "--tasks", args.tasks, "--one", task_id]
        if args.perf:
            cmd += ["--perf", "--rows", args.rows, "--timeout", str(args.timeout)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            return tuple(json.loads(out.stdout.strip().splitlines()[-1]))
        except subprocess.TimeoutExpired:
            return (task_id, "FAIL", 0, 0, float("inf"), f"timed out after {args.timeout:.0f} s")
        except (ValueError, IndexError):
            return (task_id, "FAIL", 0, 0, float("inf"), "crashed: " + (out.stderr.strip().splitlines() or ["?"])[-1][:300])

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        table = list(ex.map(one, ids))
    # A task that ran out of GPU memory beside the others (PyTorch's caching allocator in each of
    # the jobs' workers) is run again alone, budget permitting: its result is the one that counts,
    # and the note says it was re-run.
    for i, row in enumerate(table):
        if row[1] == "FAIL" and out_of_memory(row[5]):
            again = one(row[0], rerun=True)
            if again[1] != "not run":
                table[i] = again[:5] + (("run again alone after running out of memory beside other jobs; "
                                         + again[5]).rstrip("; "),)
    print(f"{'task':48} {'result':8} {'outputs':>9} {'max err':>9}  notes")
    # outputs: compared outputs (case x output) that matched / compared; max err: largest absolute
    # difference from PyTorch over them (rmse for metric-checked tasks)
    for task_id, status, good, total, worst, note in table:
        print(f"{task_id:48} {status:8} {good:>4}/{total:<4} {worst:9.2g}  {note}")
    counts = {k: sum(1 for r in table if r[1] == k) for k in ("pass", "FAIL", "skipped", "not run")}
    print(f"{counts['pass']} pass, {counts['FAIL']} FAIL, {counts['skipped']} skipped, {counts['not run']} not run "
          f"(budget) of {len(table)} tasks")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump([dict(zip(("task", "result", "passed", "total", "max_err", "notes"), r)) for r in table], fh,
                      indent=2)
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
