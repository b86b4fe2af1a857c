#!/bin/sh
# GPU test of the timing modes (core/bench.c): the noise-based stop, latency hiding, and the
# reference timed once when it is the candidate. Functional checks only (what was run, how it
# stopped, that samples exist), never how fast: speed is bench/'s business. Skips (77) without
# a CUDA device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu
fail=0

# check NAME JSON PYTHON-EXPRESSION: the expression over `d` (the document) and `p` (its perf
# rows) must be true
check() {
	if python3 - "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("perf", [])
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps({"verdict": d.get("verdict"), "logs": d.get("logs"), "summary": d.get("summary")})[:3000])
sys.exit(0 if ok else 1)
PY
	then
		echo "ok   $1"
	else
		echo "FAIL $1: $3"
		fail=1
	fi
}

"$kbx" run Activation/gelu --rows 2 --no-derived --json --timing noise --rsd 2 --min-samples 20 --max-time 400 \
	>"$tmp/noise.json" 2>"$tmp/noise.err"
check "noise mode stops on its target or its cap, with enough samples" "$tmp/noise.json" \
	'd["verdict"] == "pass" and len(p) == 2 and all(r["timing"]["mode"] == "noise" and r["timing"]["stop"] in ("noise", "cap") and r["cand"]["n"] >= 20 and (r["timing"]["stop"] == "cap" or r["timing"]["rsd"] <= 0.02) for r in p)'
check "the reference as the candidate is timed once" "$tmp/noise.json" \
	'all(r["timing"]["ref_is_cand"] and r["ref"]["median"] == r["cand"]["median"] for r in p) and d["summary"]["speedup_ref"] == 1'

"$kbx" run Activation/gelu --hide-latency --json >"$tmp/hide.json" 2>"$tmp/hide.err"
# the first run's rows (the last two) are this run's best earlier attempt
check "a second run is judged against the first (vs best, with its clocks where NVML reads them)" "$tmp/hide.json" \
	'd.get("vs_best") is not None and d["vs_best"]["verdict"] in ("same", "faster", "slower", "unclear") and len(d["vs_best"].get("rows", [])) == 2'
check "latency hiding times every row, no batch dropped" "$tmp/hide.json" \
	'd["verdict"] == "pass" and len(p) > 2 and all(r["timing"]["hide_latency"] and r["cand"]["n"] >= 1 and r["cand"]["median"] > 0 for r in p) and not any("dropped" in l for l in d.get("logs", []))'

"$kbx" run Fusion/fused_add_gelu "$srcdir/tasks/Fusion/fused_add_gelu/examples/pass_fused_vec4.cu" --rows 1 \
	--no-derived --json >"$tmp/ex.json" 2>"$tmp/ex.err"
check "another candidate times the reference too" "$tmp/ex.json" \
	'd["verdict"] == "pass" and len(p) == 1 and all(not r["timing"]["ref_is_cand"] and r["ref"]["n"] >= 1 for r in p)'
check "the split adds up to the run's seconds" "$tmp/ex.json" \
	'abs(sum(d["summary"]["split"][k] for k in ("compile_s", "inputs_s", "verify_s", "timing_s")) - d["summary"]["seconds"]) < 0.05 * d["summary"]["seconds"] + 0.01 and d["summary"]["split"]["timing_s"] > 0'
# core/engine_timing.c timing_sets_open and core/ceiling.h: the timing rotates among three input sets,
# says so, and gives its ceilings; an honest candidate is not above them
check "timed calls rotate among 3 input sets, and the ceilings are named" "$tmp/ex.json" \
	'any("timed calls rotate among 3 input sets" in l for l in d.get("logs", [])) and any(l.startswith("timing ceilings: ") and "GB/s" in l and "TFLOP/s" in l for l in d.get("logs", []))'
check "an honest candidate is below the ceilings" "$tmp/ex.json" \
	'd["verdict"] == "pass" and not any(r.get("impossible") for r in p)'

# The reference's kept timings (core/reftime.h): a candidate that is not the reference, run twice
# in one history; the second run's rows take the first's reference timings (the same medians),
# and the log says so with their age; with --retime-reference they are timed live again. Without
# NVML clock readings nothing is kept, and that is all that is checked.
ex="$srcdir/tasks/Activation/gelu/examples/normcdf_sigmoid.cu"
for i in 1 2; do
	"$kbx" run Activation/gelu "$ex" --rows 2 --no-derived --json >"$tmp/kept$i.json" 2>"$tmp/kept$i.err"
done
"$kbx" run Activation/gelu "$ex" --rows 2 --no-derived --json --retime-reference >"$tmp/kept3.json" 2>"$tmp/kept3.err"
if python3 -c 'import json, sys; sys.exit(0 if all((r.get("timing") or {}).get("clocks") for r in json.load(open(sys.argv[1]))["perf"]) else 1)' \
	"$tmp/kept1.json"; then
	check "a second run takes the first's reference timings, and says how old they are" "$tmp/kept2.json" \
		'd["verdict"] == "pass" and len(p) == 2 and all(r["timing"].get("ref_kept") and r["timing"]["ref_age_s"] >= 0 for r in p) and any("were kept from earlier runs" in l for l in d["logs"])'
	check "the kept timings are the first run's" "$tmp/kept2.json" \
		'[r["ref"]["median"] for r in p] == [r["ref"]["median"] for r in json.load(open("'"$tmp/kept1.json"'"))["perf"]]'
	check "--retime-reference times the reference live" "$tmp/kept3.json" \
		'd["verdict"] == "pass" and len(p) == 2 and not any(r["timing"].get("ref_kept") for r in p)'
else
	check "without clock readings no reference timing is kept" "$tmp/kept2.json" \
		'not any(r["timing"].get("ref_kept") for r in p)'
fi
exit $fail
