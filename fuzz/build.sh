#!/bin/sh
# fuzz/build.sh [BUILDDIR] - build the fuzz targets (default BUILDDIR: ./fuzz-build).
#
# With libFuzzer (the default, CC=clang): BUILDDIR/fuzz_<target>, instrumented with
# -fsanitize=fuzzer,address,undefined. With FUZZ_ENGINE=replay (any C compiler, gcc too):
# BUILDDIR/replay_<target>, the same targets linked with fuzz/replay.c and ASan+UBSan, which
# run the files or folders named on their command line once each.
#
# The parsers' sources are compiled straight from the tree (no configure needed), once each,
# into BUILDDIR/obj/; an object is rebuilt when its source or any header is newer.
# FUZZ_TARGETS limits the build to some targets ("task expr"); CFLAGS adds flags.
# Flag lists are split on blanks on purpose (a source path with blanks is not supported).
# shellcheck disable=SC2086
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-./fuzz-build}
engine=${FUZZ_ENGINE:-libfuzzer}
targets=${FUZZ_TARGETS:-task launch theme events expr cubin refout}

case $engine in
libfuzzer)
	CC=${CC:-clang}
	san_obj="-fsanitize=fuzzer-no-link,address,undefined"
	san_link="-fsanitize=fuzzer,address,undefined"
	prefix=fuzz_
	;;
replay)
	CC=${CC:-cc}
	san_obj="-fsanitize=address,undefined"
	san_link="$san_obj"
	prefix=replay_
	;;
*)
	echo "build.sh: unknown FUZZ_ENGINE '$engine' (expected libfuzzer or replay)" >&2
	exit 2
	;;
esac

pkgs="libpcre2-8 jansson inih"
if ! pkg_cflags=$(pkg-config --cflags $pkgs) || ! pkg_libs=$(pkg-config --libs $pkgs); then
	echo "build.sh: pkg-config cannot find $pkgs" >&2
	exit 2
fi

cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined -D_GNU_SOURCE \
-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -I$src -I$src/tasks/include $pkg_cflags ${CFLAGS:-}"
libs="$pkg_libs -lm -lpthread"

# Everything the seven parsers reach; the linker takes from the archive only what a target needs.
sources="core/status.c core/util.c core/dtype.c core/expr.c core/launch.c core/task.c core/taskini.c core/problem.c
core/inputs.c core/result.c core/events.c core/compare.c core/stats.c core/cubin.c core/quant.c core/quantjson.c
core/jsonget.c core/rules.c core/catalogue.c core/refout.c tui/theme.c"

mkdir -p "$build/obj"
# objects of another engine or compiler must not be mixed in
stamp="$engine $CC $cflags"
if [ ! -f "$build/obj/stamp" ] || [ "$(cat "$build/obj/stamp")" != "$stamp" ]; then
	rm -f "$build/obj/"*.o "$build/obj/"*.a
	printf '%s\n' "$stamp" > "$build/obj/stamp"
fi

# the source or any header newer than the object: rebuild (no dependency files needed)
up_to_date() { # object source
	[ -f "$1" ] && [ -z "$(find "$2" "$src/core" "$src/tui/theme.h" -newer "$1" \( -name '*.h' -o -name "${2##*/}" \) \
		2>/dev/null | head -n 1)" ]
}

objs=
changed=0
for s in $sources; do
	o="$build/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')"
	if ! up_to_date "$o" "$src/$s"; then
		echo "  CC   $s"
		$CC $cflags $san_obj -c "$src/$s" -o "$o"
		changed=1
	fi
	objs="$objs $o"
done
lib="$build/obj/libfuzzkbx.a"
if [ $changed = 1 ] || [ ! -f "$lib" ]; then
	rm -f "$lib"
	ar rcs "$lib" $objs
fi

for t in $targets; do
	out="$build/$prefix$t"
	extra=
	[ "$engine" = replay ] && extra="$src/fuzz/replay.c"
	echo "  LD   $out"
	$CC $cflags $san_link "$src/fuzz/fuzz_$t.c" $extra "$lib" $libs -o "$out"
done
