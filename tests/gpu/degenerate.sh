#!/bin/sh
# Degenerate-task guard: three trivial candidates per task (outputs all zeros, all ones, or a copy
# of the first input; `kbx starter TASK --trivial KIND`) against the task's own cases (no derived
# ones: the task's cases must be strong enough by themselves). A task where one of them passes is
# reported: its cases cannot tell a kernel that does nothing from a correct one. Skips (77)
# without a CUDA device. KBX_GPU_JOBS runs that many at a time. tests/gpu/degenerate.allow lists
# the few a task passes by its nature, each with the reason.
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="${KBX_DB:-$tmp/history.db}"

one() {  # task-id kind
	f="$tmp/$(echo "$1" | tr / _)_$2.cu"
	"$kbx" starter "$1" --trivial "$2" >"$f" || { echo "FAIL $1 $2: no trivial candidate"; return; }
	v=$("$kbx" run "$1" "$f" --no-perf --no-derived --json 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["verdict"], "|", d["summary"]["message"])' 2>/dev/null)
	case "$v" in
	pass*)
		if grep -q "^$1 $2\$" "$srcdir/tests/gpu/degenerate.allow"; then
			echo "ok   $1 $2: passes, as tests/gpu/degenerate.allow says it must"
		else
			echo "FAIL $1 $2: a trivial candidate passes every case ($v)"
		fi ;;
	"") echo "FAIL $1 $2: no result" ;;
	*) echo "ok   $1 $2: ${v%% |*}" ;;
	esac
}
if [ "$1" = --one ]; then
	one "$2" "$3"
	exit 0
fi
if ! "$kbx" doctor >"$tmp/doctor" 2>&1 || ! grep -q '^gpu  *ok' "$tmp/doctor"; then
	echo "SKIP: no CUDA device"
	exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read --json"; exit 77; }

ls "$srcdir"/tasks/*/*/task.ini | awk -F/ '{print $(NF-2) "/" $(NF-1)}' |
	while read -r id; do for k in zeros ones copy; do echo "$id $k"; done; done |
	xargs -P "${KBX_GPU_JOBS:-1}" -n 2 env KBX_BUILDDIR="$builddir" KBX_SRCDIR="$srcdir" KBX_DB="$KBX_DB" \
		sh "$0" --one 2>&1 | tee "$tmp/log" | grep -v '^ok'
echo "$(grep -c '^ok' "$tmp/log") trivial candidates rejected, $(grep -c '^FAIL' "$tmp/log") not"
grep -q '^FAIL' "$tmp/log" && exit 1
exit 0
