#!/bin/sh
# Check one task on the GPU: its reference passes every case, and each example gets the verdict
# its `// @kbx expect` line announces. Prints one "ok"/"FAIL" line per source; exit 1 on a FAIL.
# With KBX_GPU_PERF_ROWS=1 every perf row is checked too (the correctness check at each perf size
# and the one after timing, with the shortest timing: --warmup 0 --rep 0): an example that passes
# its cases but not the perf sizes (a tolerance its arithmetic cannot hold there) fails, unless it
# announces that with `// @kbx perf_expect VERDICT: why` (then VERDICT is the one expected). A
# passing source's line then ends with its milliseconds summed over the perf rows and the
# reference's: "[ms 203.3, reference 210.4]".
# usage: check_task.sh KBX TASK_DIR
kbx=$1
dir=$2
id="$(basename "$(dirname "$dir")")/$(basename "$dir")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
perf="--no-perf"
[ "${KBX_GPU_PERF_ROWS:-0}" = 1 ] && perf="--warmup 0 --rep 0"
check() {  # file expected-verdict label
	# shellcheck disable=SC2086 # $perf is words by design
	"$kbx" run "$id" "$1" $perf --json >"$tmp/out.json" 2>"$tmp/err"
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$tmp/out.json" 2>/dev/null || echo none)
	msg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["message"])' "$tmp/out.json" 2>/dev/null || head -c 300 "$tmp/err")
	# An example that names the first wrong stage its diff must report ("the first wrong stage
	# reported should be `softmax`") is held to it: the first failing case's stage. One that says
	# what the diagnosis must conclude ("the diagnosis should say `the rounding mode differs`") is
	# held to that too: the words in a failing case's diagnosis, of the quantization lens on an
	# output or of the first wrong stage (a small case may hold too little evidence for the lens:
	# a case that shows it must say it, and the line names that case).
	stage=$(python3 - "$1" "$tmp/out.json" <<'PY' 2>/dev/null
import json, re, sys
text = " ".join(l.strip()[2:].strip() for l in open(sys.argv[1]) if l.strip().startswith("//"))
m = re.search(r"first wrong stage reported should be `([A-Za-z0-9_]+)`", text)
g = re.search(r"diagnosis should say `([^`]+)`", text)
if m or g:
    d = json.load(open(sys.argv[2]))
    bad = [c for c in d.get("cases", []) if c["verdict"] != "pass"]
    said = []
    ok = True
    if m:
        got = (bad[0].get("first_wrong_stage") or "(none)") if bad else "(no failing case)"
        ok &= got == m.group(1)
        said.append(f"first wrong stage {got}, expected {m.group(1)}")
    if g:
        def diags(c):
            return [c.get("stage_diagnosis") or ""] + [(o.get("quant") or {}).get("diagnosis", "") for o in c.get("outputs", [])]
        hit = next((c["name"] for c in bad if any(g.group(1) in x for x in diags(c))), None)
        ok &= hit is not None
        first = "; ".join(x for x in diags(bad[0]) if x) if bad else ""
        said.append(f"diagnosis says '{g.group(1)}' in case {hit}" if hit else f"diagnosis lacks '{g.group(1)}' ({first or 'none'})")
    print(("ok " if ok else "BAD ") + ", ".join(said))
PY
)
	case $stage in
	BAD*) got="$got (${stage#BAD })"; msg="$msg" ;;
	esac
	# what a wrong source's first failing case says (its first wrong stage and the quantization
	# lens's diagnosis of each output), indented under its line, for the reader's triage; with
	# KBX_TRIAGE_ALL=1 every failing case's
	triage=
	[ "$got" = wrong ] && triage=$(python3 - "$tmp/out.json" "${KBX_TRIAGE_ALL:-0}" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
bad = [c for c in d.get("cases", []) if c["verdict"] != "pass"]
for k, c in enumerate(bad if sys.argv[2] == "1" else bad[:1]):
    line = f"       {'first ' if k == 0 else ''}failing case {c.get('name', '?')}: first wrong stage {c.get('first_wrong_stage') or '(none)'}"
    if c.get("stage_diagnosis"):
        line += f" ({c['stage_diagnosis']})"
    for o in c.get("outputs", []):
        q = (o.get("quant") or {}).get("diagnosis")
        if q:
            line += f"; {o.get('arg', '?')}: {q}"
    print(line)
PY
)
	# at perf rows, the source's own time summed over the rows next to the reference's (one call
	# each with --warmup 0 --rep 0: enough to tell a swap that makes the reference slower)
	times=
	[ "${KBX_GPU_PERF_ROWS:-0}" = 1 ] && times=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
c, r = s.get("cand_ms_sum"), s.get("ref_ms_sum")
if c and r and c > 0 and r > 0:
    print(f" [ms {c:.1f}, reference {r:.1f}]")' "$tmp/out.json" 2>/dev/null)
	if [ "$got" = "$2" ]; then
		line="ok   $3 $id: $got${stage:+ (${stage#ok })}$times"
	else
		line="FAIL $3 $id: got $got, expected $2: $msg"
		fail=1
	fi
	# one write, so that tasks checked side by side (tests/gpu/gpu.sh) keep a source's lines together
	printf '%s\n%s' "$line" "${triage:+$triage
}"
	return 0
}
check "$dir/reference.cu" pass reference
for ex in "$dir"/examples/*.cu; do
	[ -e "$ex" ] || continue
	want=$(sed -n 's|^// @kbx expect \([a-z_]*\).*|\1|p' "$ex" | head -1)
	# with every perf row, `// @kbx perf_expect X: why` is the verdict announced (bench/perf_check.py)
	if [ "${KBX_GPU_PERF_ROWS:-0}" = 1 ]; then
		perf_want=$(sed -n 's|^// @kbx perf_expect \([a-z_]*\).*|\1|p' "$ex" | head -1)
		want=${perf_want:-$want}
	fi
	check "$ex" "$want" "example $(basename "$ex")"
done
exit $fail
