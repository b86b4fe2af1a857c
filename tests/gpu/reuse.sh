#!/bin/sh
# GPU test of `kbx eval --reuse-worker` (issue 20): one kbx worker per GPU serves every CUDA item,
# holding the CUDA context between them. The same items, evaluated with a fresh worker each and
# with one kept worker, must get the same verdicts, cases and messages; an item that poisons the
# context (tests/adversarial/illegal_address.cu) ends the kept worker, and the items after it must
# still run in a fresh one, as if nothing had happened. device_s, the seconds each item spent
# opening the device, is printed for the record: a kept worker's later items skip the driver's
# start and the context's creation. Skips (77) without a CUDA device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu
fail=0
ex="$srcdir/tasks/Activation/gelu/examples"
python3 - "$tmp/pred.jsonl" "$ex/normcdf_sigmoid.cu" "$ex/no_tail.cu" "$srcdir/tests/adversarial/illegal_address.cu" \
	"$ex/normcdf_sigmoid.cu" "$ex/always_tanh.cu" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i, path in enumerate(sys.argv[2:]):
        # a comment line of its own keeps the two copies of one source distinct items
        f.write(json.dumps({"file": "Activation/gelu.py", "predict": open(path).read() + "\n// item %d\n" % i}) + "\n")
PY
for mode in fresh kept; do
	extra=
	[ $mode = kept ] && extra=--reuse-worker
	KBX_DB="$tmp/$mode.db" "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/$mode" --rows 2 --quiet $extra >"$tmp/$mode.txt" 2>&1
	echo "eval ($mode): rc=$?"
done
python3 - "$tmp/fresh/metrics.json" "$tmp/kept/metrics.json" <<'PY'
import json, sys
fresh, kept = (json.load(open(p))["items"] for p in sys.argv[1:3])
key = lambda i: (i["id"], i["verdict"], i["cases_passed"], i["cases_total"], i["message"])
want = ["pass", "wrong", "runtime_error", "pass", "wrong"]
bad = 0
for f, k, w in zip(fresh, kept, want):
    same = key(f) == key(k)
    print("%s %s: fresh %s, kept %s (expected %s); device_s fresh %.3f, kept %.3f" % (
        "ok  " if same and f["verdict"] == w else "FAIL", f["id"], f["verdict"], k["verdict"], w,
        f.get("device_s") or 0, k.get("device_s") or 0))
    bad |= not same or f["verdict"] != w
if len(fresh) != len(want) or len(kept) != len(want):
    print("FAIL: %d and %d items, expected %d" % (len(fresh), len(kept), len(want)))
    bad = 1
sys.exit(bad)
PY
[ $? -eq 0 ] || fail=1
exit $fail
