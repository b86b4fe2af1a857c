#!/bin/sh
# fuzz/run.sh [-r RUNS] [-t SECONDS] [-b BUILDDIR] [-k] [TARGET...]
#
# Builds the libFuzzer targets (fuzz/build.sh) and runs each in turn for RUNS executions
# (default 20000) from its seed corpus fuzz/corpus/fuzz_TARGET, with its dictionary; one process
# at a time. -t caps each target's time instead (libFuzzer -max_total_time). TARGETs: task, launch,
# theme, events, expr (default: all). FUZZ_FLAGS adds libFuzzer flags (e.g. -seed=1).
#
# New inputs go to BUILDDIR/work/TARGET (emptied first unless -k), never into the tree; a crash,
# leak, sanitizer report or timeout leaves its input in BUILDDIR/crashes/ and makes the script
# exit 1 after the remaining targets have run. Each target's log is BUILDDIR/logs/TARGET.log.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
runs=20000
secs=
build=./fuzz-build
keep=0
while getopts r:t:b:k opt; do
	case $opt in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	b) build=$OPTARG ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-r RUNS] [-t SECONDS] [-b BUILDDIR] [-k] [TARGET...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
targets=${*:-task launch theme events expr cubin refout}

FUZZ_ENGINE=libfuzzer FUZZ_TARGETS="$targets" "$src/fuzz/build.sh" "$build"
build=$(cd "$build" && pwd)
mkdir -p "$build/crashes" "$build/logs"

limit="-runs=$runs"
[ -n "$secs" ] && limit="-max_total_time=$secs"
failed=
for t in $targets; do
	work="$build/work/$t"
	log="$build/logs/$t.log"
	[ $keep = 1 ] || rm -rf "$work"
	mkdir -p "$work"
	dict=
	[ -f "$src/fuzz/fuzz_$t.dict" ] && dict="-dict=$src/fuzz/fuzz_$t.dict"
	# -timeout: a parser that takes 10 s on a few kilobytes is a finding; the whole run is
	# single-process (the machine may be small and shared)
	# shellcheck disable=SC2086
	if "$build/fuzz_$t" $limit -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $dict \
		-artifact_prefix="$build/crashes/${t}-" ${FUZZ_FLAGS:-} "$work" "$src/fuzz/corpus/fuzz_$t" \
		>"$log" 2>&1; then
		printf '%-7s %s\n' "$t" "$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)"
		printf '%-7s %s\n' "" "$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec):' "$log" |
			sed 's/^stat:://' | tr '\n' ' ')"
	else
		echo "$t: FAILED (log: $log)"
		grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -n 20
		failed="$failed $t"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz targets with findings:$failed"
	exit 1
fi
