#!/bin/sh
# One Triton candidate of tests/triton/ (triton_py.sh runs them, several at once): `kbx run TASK
# FILE --json` must give the verdict its header announces, with its `because` pattern (grep -E)
# in the summary message or, failing that, anywhere in the run's JSON; a syntax error must never
# be NVRTC's. Prints one line: ok|FAIL  file  expected  got  message (seconds); exit 1 on FAIL.
# usage: triton_one.sh KBX FILE
kbx=$1
f=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header() {
	sed -n "s|^# @kbx $2 \\(.*\\)\$|\\1|p" "$1" | head -n 1
}
name=$(basename "$f")
task=$(header "$f" task)
want=$(header "$f" expect)
because=$(header "$f" because)
args=$(header "$f" args)
case " $args " in
*" --rows "*) perf= ;;
*) perf=--no-perf ;;
esac
start=$(date +%s)
# shellcheck disable=SC2086 # perf and args are words by design
"$kbx" run "$task" "$f" $perf --json --no-history --launch-timeout 10 $args >"$tmp/out.json" 2>"$tmp/err"
took=$(($(date +%s) - start))
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d.get("verdict", ""))
print(" ".join(str((d.get("summary") or {}).get("message", "")).split()))' "$tmp/out.json" >"$tmp/fields" 2>/dev/null
got=$(sed -n 1p "$tmp/fields")
[ -n "$got" ] || got=none
msg=$(sed -n 2p "$tmp/fields")
[ -n "$msg" ] || msg=$(head -c 300 "$tmp/err")
found=1
if [ -n "$because" ]; then
	printf '%s\n' "$msg" | grep -qE -- "$because" || grep -qE -- "$because" "$tmp/out.json" "$tmp/err" || found=0
fi
fail=0
if [ "$got" = "$want" ] && [ "$found" = 1 ]; then
	printf 'ok   %-36s %-13s %-13s %s (%ss)\n' "$name" "$want" "$got" "$msg" "$took"
else
	printf 'FAIL %-36s %-13s %-13s %s (%ss; want %s%s)\n' "$name" "${want:-?}" "$got" "$msg" "$took" \
		"${want:-a # @kbx expect line}" "${because:+ matching /$because/}"
	fail=1
fi
if [ "$name" = gelu_syntax_error.py ] && grep -qiE 'nvrtc|identifier "import"' "$tmp/out.json" "$tmp/err"; then
	echo "FAIL gelu_syntax_error.py: reported by NVRTC"
	fail=1
fi
exit $fail
