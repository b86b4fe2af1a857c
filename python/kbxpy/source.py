"""A candidate's source: syntax check, executing it as a module, and errors on its lines.

The candidate runs as a fresh module registered in sys.modules, compiled with
filename = the candidate's source_name, and its text is installed in linecache under that name
so that inspect.getsource works (Triton's @jit reads its kernels' source) and tracebacks show
the candidate's lines. unload() removes the previous candidate entirely, so a persistent worker
serving many candidates never lets one see another.

Nothing here imports torch or triton: the syntax check works without them.
"""
import ast
import inspect
import linecache
import re
import sys
import traceback
import types

from .answer import one_line

MODULE_PREFIX = "kbx_candidate_"


class CandidateError(Exception):
    """A failure to report on the candidate's line: verdict/kind, message, line, col."""

    def __init__(self, verdict, message, line=0, col=0, log=None):
        super().__init__(message)
        self.verdict = verdict
        self.message = message
        self.line = int(line or 0)
        self.col = int(col or 0)
        self.log = list(log or [])


def check_syntax(text, source_name):
    """Compile text; raise CandidateError("compile_error") with the line of a SyntaxError."""
    try:
        return compile(text, source_name, "exec", dont_inherit=True)
    except SyntaxError as e:  # IndentationError and TabError are SyntaxErrors
        line = e.lineno or 0
        col = e.offset or 0
        what = type(e).__name__
        msg = f"{what}: {e.msg} ({source_name} line {line})"
        log = [msg]
        if e.text:
            log.append("    " + e.text.rstrip("\n"))
            if col > 0:
                log.append("    " + " " * (col - 1) + "^")
        raise CandidateError("compile_error", msg, line, col, log) from None
    except ValueError as e:  # source with NUL bytes
        raise CandidateError("compile_error", f"{source_name}: {e}", 0, 0) from None


class LoadedModule:
    """One executed candidate: the module object and where it lives in sys.modules/linecache."""

    def __init__(self, module, source_name, text):
        self.module = module
        self.name = module.__name__
        self.source_name = source_name
        self.text = text


_serial = [0]


def execute(code, text, source_name):
    """Run compiled code as a new module; CandidateError("compile_error") on ImportError or any
    exception, with the candidate's deepest line in the traceback."""
    _serial[0] += 1
    name = f"{MODULE_PREFIX}{_serial[0]}"
    module = types.ModuleType(name)
    module.__file__ = source_name
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    # mtime None: linecache.checkcache never drops the entry (there is no file to compare)
    linecache.cache[source_name] = (len(text), None, lines, source_name)
    sys.modules[name] = module
    loaded = LoadedModule(module, source_name, text)
    try:
        exec(code, module.__dict__)
    except BaseException as e:  # SystemExit or KeyboardInterrupt from a candidate is its error too
        unload(loaded)
        line = candidate_line(e, source_name)
        what = "import failed" if isinstance(e, ImportError) else "exception while loading"
        msg = f"{what}: {type(e).__name__}: {one_line(e)}"
        if line:
            msg += f" ({source_name} line {line})"
        raise CandidateError("compile_error", msg, line, 0, format_exception(e, source_name)) from None
    return loaded


def unload(loaded):
    """Forget a candidate module: sys.modules, linecache and its namespace."""
    if loaded is None:
        return
    sys.modules.pop(loaded.name, None)
    entry = linecache.cache.get(loaded.source_name)
    if entry is not None and entry[1] is None:
        del linecache.cache[loaded.source_name]
    try:
        loaded.module.__dict__.clear()
    except Exception:
        pass


def candidate_frames(exc, source_name):
    """(lineno, function name) of every traceback frame in the candidate's file, outermost first,
    following __cause__/__context__ chains (the deepest cause last)."""
    frames = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        for fs in traceback.extract_tb(exc.__traceback__):
            if fs.filename == source_name:
                frames.append((fs.lineno or 0, fs.name))
        exc = exc.__cause__ or exc.__context__
    return frames


def candidate_line(exc, source_name):
    """The deepest line of the candidate that the exception passed through, else 0."""
    frames = candidate_frames_ordered(exc, source_name)
    return frames[-1][0] if frames else 0


def candidate_frames_ordered(exc, source_name):
    """Frames of the exception itself (not its causes) in the candidate's file, outermost first;
    falls back to the causes when the exception itself never passed through the candidate."""
    own = [(fs.lineno or 0, fs.name) for fs in traceback.extract_tb(exc.__traceback__)
           if fs.filename == source_name]
    return own or candidate_frames(exc, source_name)


def format_exception(exc, source_name, limit=40):
    """Log lines: the traceback's frames in the candidate's file with their source, and the
    exception's own message (all of its lines, for Triton's multi-line errors)."""
    out = []
    for fs in traceback.extract_tb(exc.__traceback__):
        if fs.filename == source_name:
            out.append(f'  File "{fs.filename}", line {fs.lineno}, in {fs.name}')
            if fs.line:
                out.append("    " + fs.line.strip())
    out.extend(f"{type(exc).__name__}: {exc}".splitlines()[:limit])
    return out


_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)", re.M)


def function_def_lines(text):
    """{function name: line of its `def`} for every function in the source (nested ones too;
    the first definition wins)."""
    found = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in found:
            found[node.name] = node.lineno
    return found


def triton_error_line(exc, text):
    """The candidate's line for a Triton CompilationError (or a subclass): its `src` is the
    kernel's source from `def`, its `node.lineno` counts from that line. 0 when not such an error."""
    src = getattr(exc, "src", None)
    node = getattr(exc, "node", None)
    if src is None or node is None or not hasattr(node, "lineno"):
        return 0
    if not isinstance(src, str):  # newer Triton keeps the JITFunction or an ASTSource
        src = getattr(src, "src", None) or getattr(getattr(src, "fn", None), "src", None)
        if not isinstance(src, str):
            return 0
    m = _DEF.search(src)
    if not m:
        return 0
    start = function_def_lines(text).get(m.group(1))
    if not start:
        return 0
    # the `def` line of src is line 1 unless src still carries decorators above it; should a
    # Triton count lines from the top of the file instead, node.lineno already falls inside the
    # kernel while the relative reading runs past its end
    offset = src[:m.start()].count("\n")
    span = range(start, start + len(src[m.start():].splitlines()))
    relative = start + node.lineno - 1 - offset
    if relative not in span and node.lineno in span:
        return node.lineno
    return relative


def public_functions(module):
    """Plain functions defined by the module itself (not imported, not _private), in the order
    they were defined."""
    out = []
    for key, value in module.__dict__.items():
        if key.startswith("_") or not inspect.isfunction(value):
            continue
        if getattr(value, "__module__", None) != module.__name__:
            continue
        out.append(value)
    return out


def find_entry(module, entry, signature, source_name):
    """The entry function: the one named `entry`, else the last public function defined.
    CandidateError("abi_error") naming the expected function when there is none."""
    if entry:
        fn = module.__dict__.get(entry)
        if callable(fn) and not isinstance(fn, type):
            return fn
        shown = entry + (signature or "")
        raise CandidateError("abi_error", f"no function '{shown}' in {source_name}")
    fns = public_functions(module)
    if not fns:
        raise CandidateError("abi_error", f"no public function in {source_name} to call as the entry"
                             + (f" '{signature}'" if signature else ""))
    return fns[-1]
