#!/bin/sh
# GPU test of the stage program ([task] stages, doc/task-format.md): a fused reference keeps no
# stage buffers, so a failing candidate's first wrong stage is found by running the task's staged
# example on the same inputs. On a copy of Fusion/fused_cross_entropy_softmax_layernorm, whose
# reference is a fused kernel (swapped in on 2026-12-04) and whose task.ini names the staged
# former reference: without the `stages` line the first wrong stage cannot be named; with it,
# the staged former reference names it, and the verdicts are those of the real task. And a reference that keeps one stage of several
# (Fusion/fused_bmm_rmsnorm_gelu_dropout's DMMA bmm keeps its product): when the candidate's
# product matches it, the stage program names the first wrong stage after it. Skips (77) without
# a CUDA device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu
fail=0
id=Fusion/fused_cross_entropy_softmax_layernorm
src="$srcdir/tasks/$id"
root="$tmp/tasks"
dst="$root/$id"
mkdir -p "$root/Fusion"
cp -R "$srcdir/tasks/include" "$root/include"
cp "$srcdir/tasks/rules.ini" "$root/rules.ini"
cp -R "$src" "$dst"
# the staged program under a name of this test's, and the copy's task.ini without its stages line
grep -q '^stages = examples/pass_former_reference.cu$' "$dst/task.ini" ||
	{ echo "FAIL $id: task.ini no longer names examples/pass_former_reference.cu as its stages"; exit 1; }
cp "$src/examples/pass_former_reference.cu" "$dst/examples/staged_reference.cu"
sed -i '/^stages = /d' "$dst/task.ini"

# stage NAME EXAMPLE WANT-STAGE [TASKS ID]: the example is wrong, and its first failing case names
# WANT-STAGE ("" for none); the task ID of TASKS (default: the copy above)
stage() {
	KBX_TASKS=${4:-$root} "$kbx" run "${5:-$id}" "${4:-$root}/${5:-$id}/examples/$2" --no-perf --json >"$tmp/out.json" 2>"$tmp/err"
	if python3 - "$tmp/out.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = next((c.get("first_wrong_stage", "") for c in d["cases"] if c["verdict"] != "pass"), None)
ok = d["verdict"] == "wrong" and got == sys.argv[2]
if not ok:
    print(f"verdict {d['verdict']}, first wrong stage {got!r}; logs: {d.get('logs')}"[:2000])
sys.exit(0 if ok else 1)
PY
	then
		echo "ok   $1"
	else
		echo "FAIL $1"
		cat "$tmp/err"
		fail=1
	fi
}

stage "fused reference, no stage program: the stage is not named" wrong_unbiased_variance.cu ""
sed -i 's/^name = .*/&\nstages = examples\/staged_reference.cu/' "$dst/task.ini"
stage "with the stage program: layer_norm_rstd named" wrong_unbiased_variance.cu layer_norm_rstd
stage "with the stage program: log_softmax named" wrong_log_of_softmax.cu log_softmax
if python3 -c "import json,sys; l=json.load(open(sys.argv[1])).get(\"logs\") or []; sys.exit(not any(\"stage program\" in str(x) for x in l))" "$tmp/out.json"; then
	echo "ok   a log line says the stages were found against the stage program"
else
	echo "FAIL no log line names the stage program"
	fail=1
fi
grep -q '^stages = ' "$srcdir/tasks/Fusion/fused_bmm_rmsnorm_gelu_dropout/task.ini" ||
	{ echo "FAIL Fusion/fused_bmm_rmsnorm_gelu_dropout names no stage program"; fail=1; }
stage "a reference keeping its product alone: rmsnorm_rstd named by the stage program" \
	wrong_mean_over_padded_row.cu rmsnorm_rstd "$srcdir/tasks" Fusion/fused_bmm_rmsnorm_gelu_dropout
# the staged former reference itself passes against the fused one, and so do the other examples
# that should (the stage program changes no verdict)
KBX_TASKS=$root "$kbx" run "$id" "$dst/examples/staged_reference.cu" --no-perf --json >"$tmp/pass.json" 2>&1
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["verdict"] != "pass")' "$tmp/pass.json"; then
	echo "ok   the staged former reference passes against the fused one"
else
	echo "FAIL the staged former reference does not pass"
	fail=1
fi
exit $fail
