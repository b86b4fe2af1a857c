#!/bin/sh
# The layers point down, judged by what the compiler actually reads, not by how an #include is
# spelled ("tui/ui.h" and "../tui/ui.h" are the same file under -I$(top_srcdir)):
#
#   core/  reads nothing from db/, tui/ or cli/
#   db/    reads nothing from tui/ or cli/
#   tui/   reads nothing from cli/
#   curses is read by tui/draw.c and tui/tui.c only (STYLE.md: the only place that calls curses)
#
# For each source file the list of files it reads is the dependency file the build wrote
# ($KBX_BUILDDIR/<dir>/.deps/*<name>.Po: every header, directly or not, under the real flags),
# or, where there is none (an unbuilt tree), `cc -M -MG` over the source. Every path is resolved
# before it is judged.
#
# The checks are then run on planted violations (a scratch copy of the tree with one include added, and
# a dependency file that names a forbidden header): a test that cannot fail is no test.
src=$(cd "${KBX_SRCDIR:-$(dirname "$0")/..}" && pwd -P)
build=$(cd "${KBX_BUILDDIR:-$src}" && pwd -P)
CC=${CC:-cc}
LAYERS="core db tui cli"
CURSES_OK="tui/draw.c tui/tui.c"

# The dependency file of $2 (e.g. core/abi.c) under build folder $1, or nothing.
dep_file() {
	d=${2%/*}
	n=${2##*/}
	n=${n%.c}
	for f in "$1/$d/.deps/$n.Po" "$1/$d/.deps/"*"-$n.Po"; do
		# a file that was never compiled has a dummy dependency file
		if [ -f "$f" ] && ! grep -q '^# dummy' "$f"; then
			echo "$f"
			return
		fi
	done
}

# Every file that $3 (relative to source folder $1, build folder $2) reads, one absolute path
# a line.
deps_of() {
	po=$(dep_file "$2" "$3")
	if [ -n "$po" ]; then
		# the first rule only ("obj: src dep dep \ ..."); its paths are relative to the build folder
		(cd "$2" && awk 'NR == 1 { sub(/^[^:]*:/, "") } { cont = sub(/\\$/, ""); print } !cont { exit }' "$po" |
			tr -s '[:blank:]' '\n' | sed '/^$/d' | xargs -r -d '\n' realpath -m --)
	else
		"$CC" -M -MG -I"$1" -I"$2" -I"$1/tasks/include" "$1/$3" 2>/dev/null |
			sed '1s/^[^:]*://; s/\\$//' | tr -s '[:blank:]' '\n' | sed '/^$/d' |
			(cd "$1/${3%/*}" && xargs -r -d '\n' realpath -m --)
	fi
}

is_curses() {
	case $1 in
	*/ncurses/* | */ncursesw/* | */curses.h | */ncurses.h | */term.h | */panel.h | */menu.h | */form.h | \
		*/unctrl.h | */ncurses_dll.h) return 0 ;;
	esac
	return 1
}

# Check source file $3 (relative to source folder $1, build folder $2); prints each violation,
# returns 1 when there is one.
check_file() {
	layer=${3%%/*}
	case $layer in
	core) banned="db tui cli" ;;
	db) banned="tui cli" ;;
	tui) banned="cli" ;;
	*) banned="" ;;
	esac
	bad=0
	list=$(deps_of "$1" "$2" "$3")
	if [ -z "$list" ]; then
		echo "FAIL: $3: cannot tell what it includes (no dependency file, and $CC -M failed)"
		return 1
	fi
	for p in $list; do
		rel=${p#"$1"/}
		if [ "$rel" != "$p" ]; then
			for b in $banned; do
				case $rel in
				"$b"/*)
					echo "FAIL: $3 includes $rel ($layer/ may not use $b/)"
					bad=1
					;;
				esac
			done
		fi
		if is_curses "$p"; then
			case " $CURSES_OK " in
			*" $3 "*) ;;
			*)
				echo "FAIL: $3 includes curses ($p); only $CURSES_OK may"
				bad=1
				;;
			esac
		fi
	done
	return $bad
}

# Check every source file of the layers in source folder $1, build folder $2.
check_tree() {
	status=0
	nfiles=0
	for layer in $LAYERS; do
		for f in "$1/$layer"/*.c; do
			[ -f "$f" ] || continue
			nfiles=$((nfiles + 1))
			check_file "$1" "$2" "${f#"$1"/}" || status=1
		done
	done
	[ "$nfiles" -gt 0 ] || {
		echo "FAIL: no sources under $1"
		status=1
	}
	return $status
}

# ---- the tree ----------------------------------------------------------------------------------
fail=0
check_tree "$src" "$build" || fail=1

# ---- the test of the test ----------------------------------------------------------------------
broken=0
planted=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/src" "$tmp/build"
for d in $LAYERS tasks/include; do
	mkdir -p "$tmp/src/$d"
	cp -R "$src/$d/." "$tmp/src/$d/"
done
rm -rf "$tmp/src"/*/.deps
touch "$tmp/src/config.h"

# Add line $2 at the end of $1 in the scratch tree (an include anywhere is one), check $1 there, restore it. The
# check must fail, naming the file.
expect_refused() {
	cp "$tmp/src/$1" "$tmp/orig"
	echo "$2" >>"$tmp/src/$1"
	if out=$(check_file "$tmp/src" "$tmp/build" "$1"); then
		echo "FAIL: the layering check accepts '$2' in $1"
		broken=1
	elif ! echo "$out" | grep -q "^FAIL: $1 "; then
		echo "FAIL: the layering check refused '$2' in $1 without naming it: $out"
		broken=1
	fi
	cp "$tmp/orig" "$tmp/src/$1"
	planted=$((planted + 1))
}

expect_accepted() {
	if ! out=$(check_file "$tmp/src" "$tmp/build" "$1"); then
		echo "FAIL: $1 is refused in a scratch copy before anything was planted: $out"
		fail=1
	fi
}

# the untouched files pass (through cc -M: the scratch tree has no dependency files) ...
for f in core/abi.c core/util.c db/history.c tui/browser.c tui/draw.c cli/main.c; do
	expect_accepted "$f"
done
# ... and each violation fails, however the include is spelled
expect_refused core/abi.c '#include "tui/ui.h"'
expect_refused core/abi.c '#include "../tui/ui.h"'
expect_refused core/util.c '#include "db/db.h"'
expect_refused core/util.c '#include "cli/cli.h"'
expect_refused db/history.c '#include "tui/ui.h"'
expect_refused tui/browser.c '#include "cli/cli.h"'
expect_refused tui/browser.c '#include "../cli/cli.h"'
expect_refused tui/browser.c '#include <curses.h>'
expect_refused core/util.c '#include <curses.h>'
expect_refused cli/main.c '#include <curses.h>'
# a header that pulls in a higher layer makes its includers fail too
cp "$tmp/src/core/util.h" "$tmp/orig"
printf '#include "../tui/ui.h"\n' >>"$tmp/src/core/util.h"
if check_file "$tmp/src" "$tmp/build" core/util.c >/dev/null; then
	echo "FAIL: the layering check accepts core/util.c when core/util.h includes tui/ui.h"
	broken=1
fi
planted=$((planted + 1))
cp "$tmp/orig" "$tmp/src/core/util.h"
# a dependency file the build wrote is believed over the source (paths as a VPATH build writes
# them: relative to the build folder)
mkdir -p "$tmp/build/core/.deps"
printf 'core/abi.o: ../src/core/abi.c ../src/core/abi.h \\\n ../src/core/../tui/ui.h\n\n../src/core/abi.h:\n' \
	>"$tmp/build/core/.deps/abi.Po"
if check_file "$tmp/src" "$tmp/build" core/abi.c >/dev/null; then
	echo "FAIL: the layering check accepts a dependency file that names tui/ui.h for core/abi.c"
	broken=1
fi
planted=$((planted + 1))
printf 'core/abi.o: core/abi.c core/abi.h /usr/include/curses.h\n' >"$tmp/build/core/.deps/abi.Po"
if check_file "$tmp/src" "$tmp/build" core/abi.c >/dev/null; then
	echo "FAIL: the layering check accepts a dependency file that names curses.h for core/abi.c"
	broken=1
fi
planted=$((planted + 1))
if [ $broken -ne 0 ]; then
	echo "FAIL: the layering check misses a planted violation: its verdict on the tree means nothing"
	fail=1
fi

[ $fail -eq 0 ] && echo "ok: layers point down (checked by what the compiler includes; the check refused $planted planted violations)"
exit $fail
