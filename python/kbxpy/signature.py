"""Does a candidate's entry function accept the call the task makes?

The task's [python] section gives KernelBenchX's signature as text, e.g.
"(input, approximate='none')". Every required parameter of that reference must be accepted by
the candidate both by position (at the same index) and by name, because the task's crosscheck
may pass it either way; a candidate that needs a parameter the reference does not have (no
default) cannot take the call either. Optional parameters the candidate lacks are only warned
about: the call fails on them (with the candidate's line) only if the task passes them.
"""
import ast
import inspect


class SignatureError(Exception):
    pass


class RefParam:
    def __init__(self, name, kind, required):
        self.name = name
        self.kind = kind          # "positional" (also by name), "posonly", "keyword", "star", "starstar"
        self.required = required


def parse_reference(signature):
    """RefParams of a signature text "(a, b=1, *, c=2)"; SignatureError when it does not parse."""
    text = signature.strip()
    if not text.startswith("("):
        text = "(" + text + ")"
    try:
        tree = ast.parse(f"def _ref{text}: pass")
    except SyntaxError as e:
        raise SignatureError(f"cannot read the task's signature '{signature}': {e.msg}") from None
    args = tree.body[0].args
    out = []
    positional = [(a, "posonly") for a in args.posonlyargs] + [(a, "positional") for a in args.args]
    ndefault = len(args.defaults)
    for i, (a, kind) in enumerate(positional):
        out.append(RefParam(a.arg, kind, i < len(positional) - ndefault))
    if args.vararg:
        out.append(RefParam(args.vararg.arg, "star", False))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(RefParam(a.arg, "keyword", d is None))
    if args.kwarg:
        out.append(RefParam(args.kwarg.arg, "starstar", False))
    return out


def check(fn, signature):
    """Problems (list of strings, empty when fine) and warnings for fn against the signature text."""
    ref = parse_reference(signature)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [], ["the entry function's signature cannot be inspected"]
    params = list(sig.parameters.values())
    P = inspect.Parameter
    by_name = {p.name: p for p in params}
    positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    has_varargs = any(p.kind == P.VAR_POSITIONAL for p in params)
    has_varkw = any(p.kind == P.VAR_KEYWORD for p in params)
    problems, warnings = [], []
    ref_positional = [r for r in ref if r.kind in ("posonly", "positional")]
    for index, r in enumerate(ref_positional):
        mine = by_name.get(r.name)
        takes_name = (mine is not None and mine.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)) or \
                     (mine is None and has_varkw)
        at_index = positional[index] if index < len(positional) else None
        takes_pos = at_index is not None or has_varargs
        if r.required:
            if at_index is not None and at_index.name != r.name and r.kind == "positional":
                problems.append(f"argument {index + 1} is named '{at_index.name}', the task's is '{r.name}'")
            elif r.kind == "positional" and not takes_name:
                problems.append(f"parameter '{r.name}' cannot be passed by name")
            if not takes_pos:
                problems.append(f"parameter '{r.name}' cannot be passed as argument {index + 1}")
        elif not takes_name and not takes_pos:
            warnings.append(f"optional parameter '{r.name}' is not accepted")
    for r in ref:
        if r.kind == "keyword":
            mine = by_name.get(r.name)
            ok = (mine is not None and mine.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)) or has_varkw
            if not ok:
                (problems if r.required else warnings).append(
                    f"{'keyword' if r.required else 'optional keyword'} parameter '{r.name}' is not accepted")
    ref_names = {r.name for r in ref}
    for i, p in enumerate(params):
        if p.default is not P.empty or p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            continue
        if p.name in ref_names:
            continue
        # a positional slot whose reference parameter is required was judged above (by name)
        judged = p.kind != P.KEYWORD_ONLY and i < len(ref_positional) and ref_positional[i].required
        if not judged:
            problems.append(f"parameter '{p.name}' is required but the task does not pass it")
    return problems, warnings


def describe(fn):
    """The candidate's own signature as text, for messages."""
    try:
        return f"{fn.__name__}{inspect.signature(fn)}"
    except (TypeError, ValueError, AttributeError):
        return getattr(fn, "__name__", "?")
