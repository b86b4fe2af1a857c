#!/bin/sh
# The device plan in three calls of about nine minutes (one lent H200, 30 minutes a session),
# each writing everything it made into ONE file, $OUT/r.tgz (a call brings back only a few files:
# a screen folder or an eval folder in $OUT would be cut off), and a short summary on stdout.
#   A  (PARTS= a subset of "units timing adversarial compare reuse refout repeat gpu screens", default
#      all) the GPU parts of tests/core/test_gpucompare and test_gpuprop, tests/gpu/timing.sh (kept
#      reference timings included), tests/adversarial/gpu.sh,
#      tests/gpu/compare.sh (--compare gpu and both), reuse.sh (--reuse-worker), refout.sh and
#      repeat.sh (multi-block kernels' verdicts on 4 runs each, REPEAT_LIMIT seconds, default 420),
#      tests/gpu/gpu.sh (every reference and example, KBX_GPU_JOBS=14, GPU_LIMIT seconds, default
#      270), tests/tui/gpu_screens.sh
#   B  the Triton set through `kbx eval` (tests/gpu/triton_py.sh's eval alone, via
#      EVAL_ONLY=1: its per-item seconds and the part outside the split are the Python path's
#      overhead), bench/python_timing.py on five correct candidates against do_bench
#   C  the sweep of the 184 references (bench/sweep.sh, both shards, alone: it is timed)
#   D  PyTorch's own function judged by kbx at every case and perf row of every task
#      (tools/crosscheck.py --perf: kbx run --allow-pytorch), six tasks at a time, ONLY=list
#      for a part of the catalogue, ROWS=last:N for the largest rows only, BUDGET seconds, JOBS
#   E  every example at every perf row (bench/perf_check.py), with a time budget (BUDGET, then RERUN
#      seconds for what timed out or ran out of memory beside other jobs to run again alone);
#      SHARD=I/N for a slice, COMPARE_BOTH=1 to run each source with --compare host and gpu and
#      hold their reports equal (issue 20), COMPARE=both for kbx's own check of the GPU's reports
#      against the host's on the same buffers (cases and perf rows), NO_PERF=1 for the cases alone
#      (with COMPARE=both: the GPU's comparison on every case of the catalogue; COMPARE_BOTH
#      compares perf rows only, cases always compare on the host); SOURCES=FILE: only the sources
#      it lists (e.g. the "not run:" lines of a call that ran out of budget)
#   F  a real evaluation of one slice (bench/eval_real.sh --shard 0/8, one passing example per
#      task, next to KernelBenchX's golden sweep of the same tasks) three times: --compare host
#      and --compare gpu each on a fresh history (the reference timed live), then --compare gpu
#      again on the second's history (the reference's timings kept, its compile cache emptied: the
#      candidates compile as new ones would), and gpu_kept_reuse as gpu_kept with one kbx worker
#      for every item (--reuse-worker): what each change is worth;
#      RUNS= a subset of "host gpu gpu_kept", RUN_LIMIT= seconds for each (default 170: on
#      2026-12-02 shard 0/8's 23 items took longer, 5 done with --compare host, 18 with gpu),
#      SHARD= another slice than 0/8 (0/1: all), GPUS=0,1,... for a machine of several GPUs (kbx
#      eval's items and the golden sweep's tasks spread over them alike)
#   G  a short re-check: the Triton set's eval beside tools/crosscheck.py --perf of ONLY's tasks,
#      then bench/python_timing.py on TIMING_ONLY's candidates
#   P  the Triton candidates of tests/triton/pending/ (or NEW_TRITON), five at a time
#   R  a re-check of fixes in one call: tools/crosscheck.py --perf of ONLY's tasks beside the EXACT
#      branch's checks (as in A), then bench/perf_check.py on the sources listed in FIRST (those
#      that failed), then on those in SOURCES, until BUDGET seconds of the call have gone
#      (FIRST_JOBS and SOURCES_JOBS: jobs for each list, default JOBS; 1 runs slow sources alone);
#      EXACT_PERF=0 checks EXACT_TASKS at their cases only, SCREENS=1 adds tests/tui/gpu_screens.sh
#   S  the catalogue in order: tests/adversarial/gpu.sh alone first when ADV=1 (it times cheats, so
#      nothing runs beside it), then bench/perf_check.py on the sources listed in SOURCES (a file,
#      in its order; what an earlier call ran is left out by the caller) with JOBS, BUDGET, RERUN
#   W  issue 20's measurement over the whole catalogue, in as many calls as it needs: ADV=1 runs
#      tests/adversarial/gpu.sh alone first; then for each slice of SHARDS (e.g. "0/3"): with
#      PRIME=1 the sweep of that slice's references (alone, PRIME_LIMIT seconds) into the history
#      HIST (default .devstate/history.db, an ignored folder that a warm machine keeps between
#      calls), so that their timings are kept (and their outputs at the rows' first inputs), or
#      with PRIME=eval an evaluation of the references as candidates (PICK=reference, no golden
#      sweep), which keeps the reference's outputs on the fresh inputs after timing too: the
#      history a bulk evaluation has after each task's first candidate; then bench/eval_real.sh (PICK=example or reference,
#      EVAL_OPTS, RUN_LIMIT seconds for it and its golden sweep) on that history, the golden sweep
#      of the same tasks after it. The kept timings go back as $OUT/kept.db (compile cache left
#      out); KEPT=.carry/kept.db stands in for HIST on a fresh machine, but a timing is kept for
#      one GPU (its UUID is in the key): on another machine nothing is reused (2026-12-03), so
#      prime and evaluate a slice in the same call (about 470 s for a slice of 1/3), or in calls
#      back to back on one warm machine: EVAL=0 primes only (e.g. PRIME=1 SHARDS=0/1: the whole
#      sweep, ~480 s), and a later call without PRIME evaluates on that history. A priming
#      evaluation of a third took ~260 s on 2026-12-03, the sweep of one ~175 s
#   V  a change verified in one call: tests/adversarial/gpu.sh alone, then side by side step A's
#      PARTS (default "units compare refout"), step X for SWAPS (if set),
#      tests/gpu/check_task.sh of each task in CHECK_TASKS and, with BOTH_CASES=1, step E's
#      `--compare both` over every case of the catalogue (BOTH_BUDGET seconds, default 330; SOURCES
#      for a list), with REPEAT=1 tests/gpu/repeat.sh
#   X  reference swaps tried on a copy of the catalogue: SWAPS="Cat/name:example.cu ..." (append
#      ":stages" for a fused reference that keeps no stage buffers: swap_reference.py --stages);
#      each swap made in the copy, then tools/crosscheck.py of the swapped tasks (the new
#      references against PyTorch on every case) beside tests/gpu/check_task.sh of each (the new
#      reference on every case and, PERF_ROWS=1 by default, every perf row; every example's
#      announced verdict against it), JOBS at a time, TASK_LIMIT seconds each; with perf rows, a
#      "speed" line per swap: the new reference's milliseconds over the perf rows against the
#      former's (check_task's one-call timing), "NOT FASTER" where the swap gains nothing. What
#      passes and is faster is swapped here afterwards, with the same command
# usage: OUT=DIR bench/h200_steps.sh A|B|C|D|E|F|G|P|R|S|V|W|X KBX KERNELBENCHX_DIR
# Build here and carry the binary (and py/libkbxpy.so beside it, the libraries in
# LD_LIBRARY_PATH, a copy of ../shared/kbx as KERNELBENCHX_DIR): bench/h200_prepare.sh lays them
# out in .carry/; KBX_TASKS defaults to ./tasks.
step=$1
kbx=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ref=$3
bin=$(dirname "$kbx")
r=${OUT:?OUT must name the output folder}/r
mkdir -p "$r"
export KBX_TASKS=${KBX_TASKS:-$PWD/tasks} PYTHONUNBUFFERED=1
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
count() { echo "ok=$(grep -c '^ok' "$1") FAIL=$(grep -c '^FAIL' "$1")"; }
sweep_slice() {  # SHARD NAME LIMIT: the sweep of one slice of the references (KBX_DB: its history)
	timeout "$3" sh bench/sweep.sh "$kbx" "$r/$2" --shard "$1" >"$r/$2.txt" 2>&1
	el "sweep $1 rc=$?"
	head -4 "$r/$2/sweep.txt" 2>/dev/null
	grep 'NOT PASS' "$r/$2/sweep.txt" 2>/dev/null | cut -c1-300
}
want() {  # PART: step A runs it (PARTS, default all)
	case " ${PARTS:-units timing adversarial compare reuse refout repeat gpu screens} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
gpu_test() {  # LIMIT NAME SCRIPT [ENV...]
	lim=$1 name=$2 script=$3
	shift 3
	env KBX_BUILDDIR="$bin" KBX_SRCDIR="$PWD" "$@" timeout "$lim" sh "$script" >"$r/$name.txt" 2>&1
	el "$name rc=$? $(count "$r/$name.txt")"
	grep '^FAIL' "$r/$name.txt" | cut -c1-300 | head -20
}
perf_list() {  # NAME FILE JOBS RERUN: perf_check on FILE's sources until BUDGET seconds of the call
	left=$(( ${BUDGET:-540} - ($(date +%s) - t0) - 30 ))
	[ "$left" -gt 80 ] || return 1
	KBX_BUILDDIR="$bin" timeout $(( left + 25 )) python3 bench/perf_check.py --kbx "$kbx" --jobs "$3" \
		--budget "$(( left - $4 - 20 ))" --rerun-budget "$4" --timeout 240 --sources "$2" \
		--history "${TMPDIR:-/tmp}/kbx_perf_check_$$.db" --out "$r/$1.json" >"$r/$1.txt" 2>&1
	el "perf_check $1 rc=$?"
	grep "^shard " "$r/$1.txt"
	grep '^FAIL' "$r/$1.txt" | cut -c1-300 | head -40
}
"$kbx" doctor >"$r/doctor.txt" 2>&1
case $step in
A)
	# PARTS (default all): which of units timing adversarial compare reuse refout gpu screens run,
	# so that A can be split over two calls
	# the unit tests' GPU parts (bench/h200_prepare.sh carries them): the comparison kernel and the
	# qr property's kernels against the host
	if want units; then
		for t in test_gpucompare test_gpuprop; do
			timeout 120 "$bin/tests/$t" >"$r/$t.txt" 2>&1
			el "$t rc=$? $(grep -cE '^\[ +OK +\]' "$r/$t.txt") ok, $(grep -cE '^\[ +(FAILED|SKIPPED) +\]' "$r/$t.txt") failed or skipped"
			grep -E '^\[ +(FAILED|SKIPPED|ERROR|LINE) +\]|^#' "$r/$t.txt" | head -10
		done
	fi
	want timing && gpu_test 60 timing tests/gpu/timing.sh
	want adversarial && gpu_test 100 adversarial tests/adversarial/gpu.sh
	# --compare both on the same buffers, and one kept kbx worker for every CUDA item
	want compare && gpu_test 320 compare tests/gpu/compare.sh
	if want reuse; then
		gpu_test 60 reuse tests/gpu/reuse.sh
		grep -E '^(ok|FAIL) +line' "$r/reuse.txt"
	fi
	# the reference's kept outputs: reused, and never the judge of a failure (87 s on 2026-12-03)
	want refout && gpu_test 180 refout tests/gpu/refout.sh
	# kernels whose blocks talk through global memory: their verdict on every one of 4 runs
	want repeat && gpu_test "${REPEAT_LIMIT:-420}" repeat tests/gpu/repeat.sh KBX_GPU_JOBS=8
	if want gpu; then
		gpu_test "${GPU_LIMIT:-270}" gpu tests/gpu/gpu.sh KBX_GPU_JOBS=14
		grep -c '^# ok' "$r/gpu.txt" | sed 's/^/gpu.sh sources ok: /'
		grep '^# FAIL' "$r/gpu.txt" | cut -c1-300
	fi
	# EXACT=DIR: a tasks folder from a branch (its quantization tasks judged against an exact
	# target), each of its EXACT_TASKS checked side by side before it is merged; EXACT_PERF=1 at
	# every perf row too (EXACT_LIMIT seconds, default 50)
	if [ -n "${EXACT:-}" ]; then
		for t in ${EXACT_TASKS:-}; do
			KBX_TASKS="$EXACT" KBX_GPU_PERF_ROWS=${EXACT_PERF:-0} timeout "${EXACT_LIMIT:-50}" \
				sh tests/gpu/check_task.sh "$kbx" "$EXACT/$t" >"$r/exact_$(basename "$t").txt" 2>&1 &
		done
		wait
		cat "$r"/exact_*.txt | cut -c1-300
		el "exact branch checked"
	fi
	if want screens; then
		KBX_BUILDDIR="$bin" KBX_SRCDIR="$PWD" OUT="$r/screens" timeout 90 sh tests/tui/gpu_screens.sh >"$r/screens.txt" 2>&1
		el "gpu_screens rc=$? $(ls "$r/screens" 2>/dev/null | wc -l) screens"
	fi
	;;
B)
	# this session's new candidates one by one too (their `because` is checked there, not in the eval)
	for f in ${NEW_TRITON:-tests/triton/pending/*.py}; do
		KBX_TASKS=$KBX_TASKS timeout 120 sh tests/gpu/triton_one.sh "$kbx" "$f" 2>&1 | cut -c1-300
	done
	gpu_test 280 triton_eval tests/gpu/triton_py.sh EVAL_ONLY=1 KBX_EVAL_OUT="$r/triton_ev"
	grep '^# line' "$r/triton_eval.txt" | head -20
	timeout 200 python3 bench/python_timing.py --kbx "$kbx" --rounds 2 --rows 1 --only gelu,add,softmax,sum,matmul \
		--out "$r/python_timing.json" >"$r/python_timing.txt" 2>&1
	el "python_timing rc=$?"
	grep -E '^(ok|FAIL|skip)|overhead' "$r/python_timing.txt" | cut -c1-200
	;;
C)
	for s in 0 1; do
		sweep_slice $s/2 "sw$s" 290
	done
	;;
D)
	# shellcheck disable=SC2086 # ONLY is a list of task ids by design
	timeout 540 python3 tools/crosscheck.py --perf --kbx "$kbx" --kernelbenchx "$ref" --jobs "${JOBS:-6}" --rows "${ROWS:-all}" \
		--timeout 240 --budget "${BUDGET:-420}" ${ONLY:+--only $ONLY} --out "$r/xperf.json" >"$r/xperf.txt" 2>&1
	el "crosscheck --perf rc=$?"
	tail -1 "$r/xperf.txt"
	grep -E ' FAIL ' "$r/xperf.txt" | cut -c1-300 | head -30
	;;
E)
	# shellcheck disable=SC2086 # SHARD, COMPARE_BOTH, COMPARE, NO_PERF and SOURCES are words by design
	KBX_BUILDDIR="$bin" timeout 540 python3 bench/perf_check.py --kbx "$kbx" --jobs "${JOBS:-6}" --budget "${BUDGET:-400}" \
		--rerun-budget "${RERUN:-60}" --timeout 200 ${SHARD:+--shard $SHARD} ${COMPARE_BOTH:+--compare-both} \
		${COMPARE:+--compare $COMPARE} ${NO_PERF:+--no-perf} ${SOURCES:+--sources $SOURCES} --history "${TMPDIR:-/tmp}/kbx_perf_check_$$.db" \
		--out "$r/perf_check.json" >"$r/perf_check.txt" 2>&1
	el "perf_check rc=$?"
	tail -5 "$r/perf_check.txt"
	grep FAIL "$r/perf_check.txt" | cut -c1-300 | head -30
	;;
F)
	# the golden sweep of the same tasks once, after the first run; gpu_kept reuses gpu's history
	# (its reference timings kept), so it must follow gpu in RUNS
	golden=1
	for run in ${RUNS:-host gpu gpu_kept}; do
		base=${run%_reuse}
		mode=${base%_kept}
		db="$r/er_$mode.db"
		extra=
		[ "$run" != "$base" ] && extra=--reuse-worker   # gpu_kept_reuse: one kbx worker for every item
		# only the reference's timings are kept: the compile cache is emptied, so the candidates
		# (and references) compile as they would for new candidates on this GPU
		[ "$base" = gpu_kept ] && python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
dropped = c.execute("DELETE FROM compile_cache").rowcount
kept = c.execute("SELECT COUNT(*) FROM ref_timings").fetchone()[0]
c.commit()
print(sys.argv[2] + ":", dropped, "compiled images dropped,", kept, "reference timings kept")' "$db" "$run"
		KBX_DB="$db" GOLDEN=$golden GOLDEN_GPUS="${GPUS:-}" timeout "${RUN_LIMIT:-170}" sh bench/eval_real.sh \
			"$kbx" "$ref" "$r/er_$run" --shard "${SHARD:-0/8}" --compare "$mode" ${GPUS:+--gpus "$GPUS"} $extra \
			>"$r/er_$run.txt" 2>&1
		el "eval_real $run rc=$?"
		grep -E '^(kbx eval|split|verify|items|slowest|reference timings|golden|ratio)' "$r/er_$run/report.txt" 2>/dev/null
		golden=0
	done
	;;
P)
	# the candidates of tests/triton/pending/ alone, side by side (each its own worker): those
	# that get their announced verdict move up to tests/triton/
	# shellcheck disable=SC2086 # NEW_TRITON is a list of files by design
	ls ${NEW_TRITON:-tests/triton/pending/*.py} | KBX_TASKS=$KBX_TASKS timeout 200 xargs -P 5 -n 1 \
		sh tests/gpu/triton_one.sh "$kbx" >"$r/pending.txt" 2>&1
	el "pending rc=$? $(count "$r/pending.txt")"
	cut -c1-300 "$r/pending.txt"
	;;
G)
	# a short call re-checking a session's fixes: the Triton set's eval beside the cross-check of
	# ONLY's tasks (verdicts only: neither is timed against anything here), then TIMING_ONLY's
	# candidates against do_bench alone on the GPU
	gpu_test 120 triton_eval tests/gpu/triton_py.sh EVAL_ONLY=1 KBX_EVAL_OUT="$r/triton_ev" &
	# shellcheck disable=SC2086 # ONLY is a list of task ids by design
	timeout 120 python3 tools/crosscheck.py --perf --kbx "$kbx" --kernelbenchx "$ref" --jobs 6 --rows last:3 \
		--timeout 100 --budget 80 ${ONLY:+--only $ONLY} --out "$r/xperf.json" >"$r/xperf.txt" 2>&1
	el "crosscheck --perf rc=$?"
	grep -E ' (FAIL|pass|skipped) ' "$r/xperf.txt" | cut -c1-260
	wait
	grep '^# line' "$r/triton_eval.txt" | head -20
	if [ -n "${TIMING_ONLY:-}" ]; then
		timeout 45 python3 bench/python_timing.py --kbx "$kbx" --rounds 1 --rows 1 --only "$TIMING_ONLY" \
			--out "$r/python_timing.json" >"$r/python_timing.txt" 2>&1
		el "python_timing rc=$?"
		grep -E '^(ok|FAIL|skip)' "$r/python_timing.txt" | cut -c1-200
	fi
	;;
R)
	# a task of the cross-check that ran out of memory beside the others runs again alone, within
	# its re-run budget
	# (no ONLY: no cross-check)
	# shellcheck disable=SC2086 # ONLY is a list of task ids by design
	[ -n "${ONLY:-}" ] && timeout 200 python3 tools/crosscheck.py --perf --kbx "$kbx" --kernelbenchx "$ref" \
		--jobs "${JOBS:-6}" --rows all --timeout 180 --budget 60 --rerun-budget 90 --only $ONLY \
		--out "$r/xperf.json" >"$r/xperf.txt" 2>&1 &
	for t in ${EXACT_TASKS:-}; do
		KBX_TASKS="$EXACT" KBX_GPU_PERF_ROWS=${EXACT_PERF:-1} timeout "${EXACT_LIMIT:-150}" \
			sh tests/gpu/check_task.sh "$kbx" "$EXACT/$t" >"$r/exact_$(basename "$t").txt" 2>&1 &
	done
	# SCREENS=1: tests/tui/gpu_screens.sh's captures beside them (verdicts only, nothing timed)
	if [ "${SCREENS:-0}" = 1 ]; then
		KBX_BUILDDIR="$bin" KBX_SRCDIR="$PWD" OUT="$r/screens" timeout 120 sh tests/tui/gpu_screens.sh >"$r/screens.txt" 2>&1 &
	fi
	wait
	el "crosscheck --perf and exact checks done"
	if [ -n "${ONLY:-}" ]; then
		tail -1 "$r/xperf.txt"
		grep -E ' (FAIL|skipped) ' "$r/xperf.txt" | cut -c1-300
	fi
	[ -n "${EXACT_TASKS:-}" ] && cat "$r"/exact_*.txt | cut -c1-300
	for list in FIRST SOURCES; do
		eval "file=\${$list:-}"
		[ -n "$file" ] || continue
		jobs=${JOBS:-6}
		case $list in
		FIRST) jobs=${FIRST_JOBS:-$jobs} ;;
		SOURCES) jobs=${SOURCES_JOBS:-$jobs} ;;
		esac
		perf_list "perf_$list" "$file" "$jobs" 40 || break
	done
	;;
S)
	[ "${ADV:-0}" = 1 ] && gpu_test 150 adversarial tests/adversarial/gpu.sh
	perf_list perf_check "${SOURCES:?SOURCES must name a file of sources}" "${JOBS:-8}" "${RERUN:-60}"
	;;
W)
	hist=${HIST:-$PWD/.devstate/history.db}
	mkdir -p "$(dirname "$hist")"
	[ ! -f "$hist" ] && [ -f "${KEPT:-}" ] && cp "$KEPT" "$hist" && el "history from $KEPT"
	[ "${ADV:-0}" = 1 ] && gpu_test 150 adversarial tests/adversarial/gpu.sh && el "adversarial $(count "$r/adversarial.txt")"
	for shard in ${SHARDS:-}; do
		n=$(echo "$shard" | tr / _)
		[ "${PRIME:-0}" = 1 ] && KBX_DB="$hist" sweep_slice "$shard" "sw_$n" "${PRIME_LIMIT:-250}"
		if [ "${PRIME:-0}" = eval ]; then
			# shellcheck disable=SC2086 # EVAL_OPTS is words by design
			KBX_DB="$hist" SHARD=$shard PICK=reference GOLDEN=0 timeout "${PRIME_LIMIT:-250}" sh bench/eval_real.sh \
				"$kbx" "$ref" "$r/pe_$n" ${EVAL_OPTS:-} >"$r/pe_$n.txt" 2>&1
			el "priming eval $shard rc=$? $(grep -E '^kbx eval:' "$r/pe_$n.txt")"
		fi
		[ "${EVAL:-1}" = 0 ] && continue
		KBX_DB="$hist" SHARD=$shard timeout "${RUN_LIMIT:-420}" sh bench/eval_real.sh "$kbx" "$ref" "$r/er_$n" ${EVAL_OPTS:-} \
			>"$r/er_$n.txt" 2>&1
		el "eval_real $shard rc=$?"
		grep -E '^(eval_real:|kbx eval|split|verify|items|slowest|candidates over|reference timings|reference outputs|golden|ratio|by class)' \
			"$r/er_$n.txt" | cut -c1-400
	done
	[ -f "$hist" ] && python3 -c 'import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
src.execute("VACUUM INTO ?", (sys.argv[2],))
c = sqlite3.connect(sys.argv[2])
c.execute("DELETE FROM compile_cache")
c.execute("DELETE FROM ref_outputs")  # hundreds of MB; a new machine draws and runs them again
c.commit()
c.execute("VACUUM")
print("kept.db:", c.execute("SELECT COUNT(*) FROM ref_timings").fetchone()[0], "reference timings")' "$hist" "$OUT/kept.db"
	;;
V)
	# a change verified in one call: tests/adversarial/gpu.sh alone (it times cheats), then side by
	# side (none of them times anything): step A's PARTS (default "units compare refout"), step X
	# for SWAPS (when set), tests/gpu/check_task.sh of each task in CHECK_TASKS (its reference
	# and every example's verdict at the cases) and with BOTH_CASES=1 step E's --compare both
	gpu_test 100 adversarial tests/adversarial/gpu.sh
	OUT="$r/a" PARTS=${PARTS:-units compare refout} sh "$0" A "$kbx" "$ref" >"$r/a.txt" 2>&1 &
	[ -n "${SWAPS:-}" ] && OUT="$r/x" sh "$0" X "$kbx" "$ref" >"$r/x.txt" 2>&1 &
	# BOTH_CASES=1: step E's --compare both over every case of the catalogue (the GPU's reports
	# held equal to the host's on the same buffers; issue 20's line 2), JOBS=6 beside the rest
	[ "${BOTH_CASES:-0}" = 1 ] && OUT="$r/e" COMPARE=both NO_PERF=1 JOBS=6 BUDGET=${BOTH_BUDGET:-330} \
		sh "$0" E "$kbx" "$ref" >"$r/e.txt" 2>&1 &
	# REPEAT=1: tests/gpu/repeat.sh (multi-block kernels, 4 runs each) beside the rest
	[ "${REPEAT:-0}" = 1 ] && OUT="$r/rp" PARTS=repeat sh "$0" A "$kbx" "$ref" >"$r/rp.txt" 2>&1 &
	for t in ${CHECK_TASKS:-}; do
		KBX_BUILDDIR="$bin" KBX_SRCDIR="$PWD" timeout "${TASK_LIMIT:-240}" sh tests/gpu/check_task.sh "$kbx" \
			"$KBX_TASKS/$t" >"$r/check_$(echo "$t" | tr / _).txt" 2>&1 &
	done
	wait
	el "checks side by side done"
	cat "$r/a.txt"
	[ -f "$r/x.txt" ] && cat "$r/x.txt"
	[ -f "$r/e.txt" ] && cat "$r/e.txt"
	[ -f "$r/rp.txt" ] && cat "$r/rp.txt"
	for t in ${CHECK_TASKS:-}; do
		grep -hE '^(ok|FAIL)' "$r/check_$(echo "$t" | tr / _).txt" | cut -c1-300
	done
	;;
X)
	# the catalogue copied, each swap of SWAPS made there by tools/swap_reference.py
	tmp=$(mktemp -d)
	cp -r "$KBX_TASKS" "$tmp/tasks"
	ids=
	for s in ${SWAPS:?SWAPS must list Cat/name:example.cu entries}; do
		t=${s%%:*} rest=${s#*:}
		ex=${rest%%:*} stages='' n=$(echo "$t" | tr / _)
		[ "$rest" != "$ex" ] && stages=--stages
		# shellcheck disable=SC2086 # $stages is empty or one word
		if python3 tools/swap_reference.py --tasks "$tmp/tasks" $stages "$t" "$ex" >"$r/swap_$n.txt" 2>&1; then
			ids="$ids $t"
		else
			el "swap $t refused:"
			cut -c1-300 "$r/swap_$n.txt"
		fi
	done
	if [ -z "$ids" ]; then
		# (crosscheck.py once took an empty --only as the whole catalogue and ran to its limit)
		el "no swap made: nothing to check"
	else
		# the PyTorch cross-check of the new references on every case, beside each swapped task's
		# check_task.sh (the new reference on every case and perf row, each example's verdict)
		# shellcheck disable=SC2086 # ids is a list of task ids by design
		KBX_TASKS="$tmp/tasks" timeout "${XCHECK_LIMIT:-300}" python3 tools/crosscheck.py --kbx "$kbx" --kernelbenchx "$ref" \
			--tasks "$tmp/tasks" --jobs 4 --only $ids --out "$r/xcheck.json" >"$r/xcheck.txt" 2>&1 &
		# shellcheck disable=SC2086,SC2016 # the ids are words; the inner script expands its own arguments
		printf '%s\n' $ids | KBX_TASKS="$tmp/tasks" KBX_GPU_PERF_ROWS=${PERF_ROWS:-1} xargs -P "${JOBS:-4}" -n 1 sh -c \
			'timeout "$1" sh tests/gpu/check_task.sh "$2" "$3/$5" >"$4/check_$(echo "$5" | tr / _).txt" 2>&1' \
			_ "${TASK_LIMIT:-240}" "$kbx" "$tmp/tasks" "$r"
		wait
		el "swaps checked:$ids"
		tail -n 3 "$r/xcheck.txt" | cut -c1-300
		grep -hE '^(ok|FAIL)' "$r"/check_*.txt | cut -c1-300
		# a swap is for speed: the former reference, now an example, timed against the new one at
		# the perf rows (check_task's "[ms C, reference R]"); a new reference that is not faster
		# is named, so that it is not swapped here (low_rank_svd_approximation, 2026-12-03)
		for t in $ids; do
			n=$(echo "$t" | tr / _)
			former=$(sed -n 's|.*former reference -> examples/\([^ ;]*\.cu\).*|\1|p' "$r/swap_$n.txt")
			pair=$(sed -n "s|^ok   example $former $t: pass.*\\[ms \\([0-9.]*\\), reference \\([0-9.]*\\)\\]\$|\\1 \\2|p" \
				"$r/check_$n.txt")
			if [ -z "$pair" ]; then
				el "speed $t: no timing of the former reference ($former) at the perf rows: not compared"
				continue
			fi
			echo "$pair" | awk -v t="$t" '{ printf "speed %s: new reference %.1f ms, former %.1f ms over the perf rows: %s\n",
				t, $2, $1, ($2 < $1 ? "faster" : "NOT FASTER: do not swap") }'
		done
	fi
	rm -rf "$tmp"
	;;
*)
	echo "usage: OUT=DIR bench/h200_steps.sh A|B|C|D|E|F|G|P|R|S|V|W|X KBX KERNELBENCHX_DIR" >&2
	exit 2
	;;
esac
rm -f "${TMPDIR:-/tmp}/kbx_perf_check_$$.db"*   # perf_check's scratch history (its compile cache)
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$r"
el "done: $OUT/r.tgz"
