#!/bin/sh
# Unit tests of the Python worker (python/kbxpy); need only python3, no torch, no GPU.
# Exit 77 (automake's "skipped") when python3 is missing.
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "run.sh: $PYTHON not found, skipping" >&2; exit 77; }
cd "$here" || exit 1
PYTHONDONTWRITEBYTECODE=1 exec "$PYTHON" -m unittest discover -s "$here" -p 'unit_*.py' "$@"
