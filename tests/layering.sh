#!/bin/sh
# The layers point down: core/ includes neither db/ nor tui/ nor curses; db/ includes no tui/
# and no curses; only tui/ includes curses.
src=${KBX_SRCDIR:-$(dirname "$0")/..}
fail=0
check() {
	# $1 folder, $2 pattern, $3 what
	hits=$(grep -nE "$2" "$src/$1"/*.c "$src/$1"/*.h 2>/dev/null)
	if [ -n "$hits" ]; then
		echo "FAIL: $1/ $3:"
		echo "$hits"
		fail=1
	fi
}
check core '#include[[:space:]]*[<"](n?curses|ncursesw/|term\.h|panel\.h)' "includes curses"
check core '#include[[:space:]]*"\.\./(db|tui|cli)/' "includes a higher layer"
check db '#include[[:space:]]*[<"](n?curses|ncursesw/|term\.h|panel\.h)' "includes curses"
check db '#include[[:space:]]*"\.\./(tui|cli)/' "includes a higher layer"
check cli '#include[[:space:]]*[<"](n?curses|ncursesw/)' "includes curses (only tui/ may)"
# A test that cannot fail is no test: make sure the checks above see a violation.
tmp=$(mktemp -d)
mkdir "$tmp/core"
printf '#include <curses.h>\n' >"$tmp/core/bad.c"
if ! grep -qE '#include[[:space:]]*[<"](n?curses|ncursesw/|term\.h|panel\.h)' "$tmp/core/bad.c"; then
	echo "FAIL: the curses pattern does not match a curses include"
	fail=1
fi
rm -rf "$tmp"
[ $fail -eq 0 ] && echo "ok: layers point down"
exit $fail
