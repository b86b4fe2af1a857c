#!/bin/sh
# The adversarial corpus without running any kernel (README.md): every candidate's header is
# well-formed, and kbx compiles it with every GPU hidden (CUDA_VISIBLE_DEVICES=), so that the
# result is the same on any machine: verdict not_run. A candidate whose expected verdict is
# decided before anything runs must get it: compile_error exactly, with a summary message matching
# its `because` pattern; so must abi_error, which kbx decides from the compiled image when there is
# no device (core/abi.h) and from the driver when there is one (those candidates run with the GPUs
# visible). Prints one line per candidate; exit 0 when all are as expected, 1 otherwise (77: kbx
# cannot compile here). A candidate with a `reports` line must also show a compile-time finding
# that matches it (a device global found in the compiled image, say).
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
dir="$srcdir/tests/adversarial"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="$tmp/history.db"
: "${KBX_TASKS:=$srcdir/tasks}"
export KBX_TASKS

command -v python3 >/dev/null || { echo "SKIP: python3 needed to read --json"; exit 77; }
[ -x "$kbx" ] || { echo "FAIL: no kbx at $kbx"; exit 1; }
"$kbx" doctor >"$tmp/doctor" 2>&1
if ! grep -q '^nvrtc  *ok' "$tmp/doctor"; then
	echo "SKIP: kbx cannot compile here (no NVRTC)"
	cat "$tmp/doctor"
	exit 77
fi
abi_accept=abi_error

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
	args=$(header "$f" args | sed "s/--sanitize [a-z]*//")  # the sanitizer needs a GPU
	problem=
	case $want in
	pass | wrong | impossible_timing | compile_error | abi_error | runtime_error | timeout) ;;
	*) problem="expected verdict '$want' is not one of pass, wrong, impossible_timing, compile_error, abi_error, runtime_error, timeout" ;;
	esac
	[ -n "$task" ] || problem="no '// @kbx task Category/name' line"
	[ -n "$because" ] || [ "$want" = pass ] || problem="no '// @kbx because REGEX' line (required unless pass)"
	if [ -n "$because" ]; then
		echo "" | grep -qE -- "$because" 2>/dev/null
		[ $? -le 1 ] || problem="'because' is not an extended regex: $because"
	fi
	if [ -n "$problem" ]; then
		printf 'FAIL %-36s %s\n' "$name" "$problem"
		fail=1
		continue
	fi
	# shellcheck disable=SC2086 # args are words by design
	if [ "$want" = abi_error ]; then
		"$kbx" run "$task" "$f" --no-perf --json --no-history $args >"$tmp/out.json" 2>"$tmp/err"
	else
		CUDA_VISIBLE_DEVICES= "$kbx" run "$task" "$f" --no-perf --json --no-history $args >"$tmp/out.json" 2>"$tmp/err"
	fi
	got=$(field "$tmp/out.json" verdict)
	[ -n "$got" ] || got=none
	msg=$(field "$tmp/out.json" message)
	[ -n "$msg" ] || msg=$(head -c 300 "$tmp/err")
	case $want in
	compile_error) accept=compile_error ;;
	abi_error) accept=$abi_accept ;;
	*) accept=not_run ;;
	esac
	ok=
	for v in $accept; do
		[ "$got" = "$v" ] || continue
		if [ "$got" = not_run ] || printf '%s\n' "$msg" | grep -qE -- "$because"; then
			ok=1
		fi
	done
	reports=$(header "$f" reports)
	if [ -n "$ok" ] && [ -n "$reports" ] && ! diags "$tmp/out.json" | grep -qE -- "$reports"; then
		ok=
		msg="no compile-time finding matches /$reports/: $(diags "$tmp/out.json" | head -n 3 | tr '\n' ' ')"
	fi
	if [ -n "$ok" ]; then
		printf 'ok   %-36s %-13s %-13s %s\n' "$name" "$want" "$got" "$msg"
	else
		printf 'FAIL %-36s %-13s %-13s %s (want %s%s)\n' "$name" "$want" "$got" "$msg" \
			"$(echo "$accept" | sed 's/ / or /')" "$([ "$accept" = not_run ] || echo " matching /$because/")"
		fail=1
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no candidates in $dir"; fail=1; }
exit $fail
