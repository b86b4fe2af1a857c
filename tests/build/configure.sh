#!/bin/sh
# configure in a tree that has a core/ folder (as kbx's does): no "rm: cannot remove 'core'"
# noise, no confdefs.h left behind, and a CUDA toolkit named with --with-cuda that is not there
# fails with a message instead of building without GPU support.
set -u
src=${KBX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -x "$src/configure" ] || { echo "SKIP: no configure in $src"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail=0

# configure stops at the CUDA check, before it needs Makefile.in or config.h.in
mkdir -p "$tmp/core"
cp "$src/configure" "$tmp/" && cp -R "$src/build-aux" "$tmp/" && cp "$src/core/engine.h" "$tmp/core/" || exit 1
(cd "$tmp" && ./configure --with-cuda=/nonexistent >out 2>err)
rc=$?
if [ $rc -eq 0 ]; then
	echo "FAIL: configure --with-cuda=/nonexistent succeeded"; fail=1
fi
if ! grep -q "'/nonexistent' given by --with-cuda" "$tmp/err"; then
	echo "FAIL: no message naming the missing toolkit:"; cat "$tmp/err"; fail=1
fi
if grep -q "cannot remove" "$tmp/out" "$tmp/err"; then
	echo "FAIL: rm complained:"; grep "cannot remove" "$tmp/out" "$tmp/err" | head -3; fail=1
fi
for f in confdefs.h conftest.c conftest.err; do
	if [ -e "$tmp/$f" ]; then echo "FAIL: configure left $f behind"; fail=1; fi
done
if [ ! -f "$tmp/core/engine.h" ]; then echo "FAIL: core/ lost its files"; fail=1; fi

[ $fail -eq 0 ] && echo "PASS: configure with a core/ folder and a missing --with-cuda toolkit"
exit $fail
