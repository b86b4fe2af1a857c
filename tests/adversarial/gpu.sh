#!/bin/sh
# The adversarial corpus on a GPU (README.md): every candidate runs on its task and must get the
# verdict its header announces, with a summary message matching its `because` pattern. Runs
# --no-perf unless the header's args ask for timing (--rows N); the header's args come last, so
# they may override the default --launch-timeout 10. One line per candidate:
#   ok|FAIL  file  expected  got  message
# and a last check that a run after the faults and timeouts still works (a fresh worker).
# Exit 0 when all are as expected, 1 otherwise; 77 (skip) without a CUDA device.
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
dir="$srcdir/tests/adversarial"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="$tmp/history.db"
: "${KBX_TASKS:=$srcdir/tasks}"
export KBX_TASKS

if ! "$kbx" doctor >"$tmp/doctor" 2>&1 || ! grep -q '^gpu  *ok' "$tmp/doctor"; then
	echo "SKIP: no CUDA device"
	cat "$tmp/doctor"
	exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read --json"; exit 77; }

. "$dir/lib.sh"

fail=0
n=0
for f in "$dir"/*.cu; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	task=$(header "$f" task)
	want=$(header "$f" expect)
	because=$(header "$f" because)
	args=$(header "$f" args)
	below_x=$(header "$f" speedup_below)
	case " $args " in
	*" --rows "*) perf= ;;
	*) perf=--no-perf ;;
	esac
	start=$(date +%s)
	# shellcheck disable=SC2086 # perf and args are words by design
	"$kbx" run "$task" "$f" $perf --json --no-history --launch-timeout 10 $args >"$tmp/out.json" 2>"$tmp/err"
	took=$(($(date +%s) - start))
	got=$(field "$tmp/out.json" verdict)
	[ -n "$got" ] || got=none
	msg=$(field "$tmp/out.json" message)
	[ -n "$msg" ] || msg=$(head -c 300 "$tmp/err")
	# speedup_below X: the run must report a speedup vs the reference, and below X
	fast=ok
	if [ -n "$below_x" ]; then
		sp=$(field "$tmp/out.json" speedup_ref)
		msg="$msg (speedup vs reference ${sp:-none}, must be below $below_x)"
		below "${sp:-x}" "$below_x" || fast=no
	fi
	if [ -n "$task" ] && [ "$got" = "$want" ] && [ "$fast" = ok ] &&
		{ [ -z "$because" ] || printf '%s\n' "$msg" | grep -qE -- "$because"; }; then
		printf 'ok   %-36s %-13s %-13s %s (%ss)\n' "$name" "$want" "$got" "$msg" "$took"
	else
		printf 'FAIL %-36s %-13s %-13s %s (%ss; want %s%s)\n' "$name" "${want:-?}" "$got" "$msg" "$took" \
			"${want:-a // @kbx expect line}" "${because:+ matching /$because/}"
		fail=1
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no candidates in $dir"; fail=1; }

# After the timeouts and faults above, the next run works in a fresh worker.
"$kbx" run Activation/gelu "$srcdir/tasks/Activation/gelu/reference.cu" --no-perf --json --no-history \
	>"$tmp/out.json" 2>"$tmp/err"
got=$(field "$tmp/out.json" verdict)
if [ "$got" = pass ]; then
	echo "ok   fresh worker after faults"
else
	echo "FAIL fresh worker after faults: ${got:-none} $(field "$tmp/out.json" message)"
	fail=1
fi
exit $fail
