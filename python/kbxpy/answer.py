"""JSON answers for the engine, always valid and always within the caller's buffer.

core/pyhost.h: every callback answers one JSON object in a buffer of `outlen` bytes (NUL
included); truncated JSON is an unreadable answer. fit() shortens the log first (keeping its
head and tail), then the message and any other long strings, until the encoding fits.
"""
import json

MAX_LINE = 400          # one log line, in characters
MAX_LOG_LINES = 200     # before the size limit is even considered
ELLIPSIS = "..."


def one_line(text, limit=MAX_LINE):
    """The first non-empty line of text (or all of it joined), cut to limit characters."""
    text = str(text)
    parts = [p.strip() for p in text.splitlines() if p.strip()]
    line = " | ".join(parts) if len(parts) <= 3 else parts[0] + " | " + parts[-1]
    return cut(line, limit)


def cut(text, limit):
    text = str(text)
    if limit <= len(ELLIPSIS):
        return text[:max(limit, 0)]
    return text if len(text) <= limit else text[:limit - len(ELLIPSIS)] + ELLIPSIS


def _encode(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _thin_log(log, keep):
    """The log with at most `keep` lines: its head and tail and a line saying how many went."""
    if len(log) <= keep:
        return list(log)
    if keep <= 1:
        return [f"({len(log)} log lines left out)"][:keep]
    head = (keep - 1) // 2
    tail = keep - 1 - head
    return log[:head] + [f"({len(log) - head - tail} log lines left out)"] + (log[-tail:] if tail else [])


def fit(obj, outlen):
    """UTF-8 bytes of obj as JSON, no longer than outlen - 1 (room for the NUL)."""
    limit = max(int(outlen) - 1, 0)
    obj = dict(obj)
    if "log" in obj:
        obj["log"] = [cut(line, MAX_LINE) for line in obj["log"]][-10000:]
        obj["log"] = _thin_log(obj["log"], MAX_LOG_LINES)
    data = _encode(obj)
    if len(data) <= limit:
        return data
    # the log goes first, then every string is cut down, harder each round
    keep = len(obj.get("log", []))
    while "log" in obj and keep > 0 and len(data) > limit:
        keep //= 2
        obj["log"] = _thin_log(obj["log"], keep)
        data = _encode(obj)
    strlimit = MAX_LINE
    while len(data) > limit and strlimit > 8:
        strlimit //= 2
        for k, v in list(obj.items()):
            if isinstance(v, str):
                obj[k] = cut(v, strlimit)
            elif isinstance(v, list):
                obj[k] = [cut(x, strlimit) if isinstance(x, str) else x for x in v][:max(strlimit // 8, 1)]
        data = _encode(obj)
    if len(data) > limit:  # a tiny buffer: the smallest valid answer that says so
        for small in ({"message": "answer too long"}, {}):
            data = _encode(small)
            if len(data) <= limit:
                return data
        return b""
    return data
