#!/bin/sh
# tools/swap_reference.py on a copy of a Fusion task: the example becomes the reference, the
# former reference a passing example, `--stages` names it in task.ini, kbx loads and compiles the
# result (without a GPU: compile and ABI check), and every refusal writes nothing.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"

command -v python3 >/dev/null || { echo "SKIP: python3 needed"; exit 77; }
swap="$srcdir/tools/swap_reference.py"
id=Fusion/fused_cos_avg_pool1d
root="$tmp/tasks"
d="$root/$id"
mkdir -p "$root/Fusion"
cp -R "$srcdir/tasks/include" "$root/include"
cp "$srcdir/tasks/rules.ini" "$root/rules.ini"
cp -R "$srcdir/tasks/$id" "$d"
cp -R "$d" "$tmp/before"

expect 2 "a wrong example cannot become the reference" -- python3 "$swap" --tasks "$root" "$id" wrong_fast_cos.cu
contains "$tmp/err" "expected '// @kbx expect pass'" "the refusal says why"
expect 2 "a missing example" -- python3 "$swap" --tasks "$root" "$id" nope.cu
expect 2 "a path instead of a name" -- python3 "$swap" --tasks "$root" "$id" ../reference.cu
expect 2 "a bad task id" -- python3 "$swap" --tasks "$root" "../$id" pass_fast_tiled_smem.cu
if diff -r "$tmp/before" "$d" >/dev/null; then ok "the refusals wrote nothing"; else no "the refusals wrote nothing"; fi
# a reference with an `untimed` launch (Quantization/linear_w4a16's exact linear layer) cannot
# become an example: refused, with the line
qid=Quantization/linear_w4a16
mkdir -p "$root/Quantization"
cp -R "$srcdir/tasks/$qid" "$root/$qid"
cp -R "$root/$qid" "$tmp/qbefore"
qex=$(cd "$root/$qid/examples" && grep -l '^// @kbx expect pass' ./*.cu | head -n 1)
expect 2 "a reference with an untimed launch" -- python3 "$swap" --tasks "$root" "$qid" "${qex#./}"
contains "$tmp/err" "reference.cu line [0-9]*: an .untimed. launch" "the refusal names the line"
if diff -r "$tmp/qbefore" "$root/$qid" >/dev/null; then ok "that refusal wrote nothing"; else no "that refusal wrote nothing"; fi
rm -rf "$root/Quantization"

expect 0 "swap with --stages" -- python3 "$swap" --tasks "$root" --stages --date 2026-12-01 "$id" pass_fast_tiled_smem.cu
[ -e "$d/examples/pass_fast_tiled_smem.cu" ] && no "the example left examples/" || ok "the example left examples/"
if cmp -s "$tmp/before/reference.cu" "$d/examples/pass_former_reference.cu"; then
	no "the former reference got its header"
else
	tail -n +4 "$d/examples/pass_former_reference.cu" | cmp -s - "$tmp/before/reference.cu" &&
		ok "the former reference is kept whole under three lines" || no "the former reference is kept whole under three lines"
fi
contains "$d/examples/pass_former_reference.cu" "^// @kbx expect pass$" "the former reference is a passing example"
lacks "$d/reference.cu" "@kbx expect" "the new reference has no expect line"
contains "$d/reference.cu" "^// $id: the reference since 2026-12-01" "the new reference names its date"
tail -n +5 "$d/reference.cu" >"$tmp/newbody"
tail -n +2 "$tmp/before/examples/pass_fast_tiled_smem.cu" >"$tmp/exbody"
cmp -s "$tmp/newbody" "$tmp/exbody" && ok "the new reference is the example's code" || no "the new reference is the example's code"
contains "$d/task.ini" "^stages = examples/pass_former_reference.cu$" "task.ini names the stage program"
# the stages line sits in [task]: kbx loads the task (a stray key elsewhere would be refused)
expect 0 "kbx loads the swapped task" -- env KBX_TASKS="$root" "$kbx" show "$id"
"$kbx" doctor >"$tmp/doctor" 2>&1
if ! grep -q '^gpu  *ok' "$tmp/doctor"; then
	KBX_TASKS="$root" "$kbx" run "$id" "$d/examples/pass_former_reference.cu" --no-history >"$tmp/out" 2>&1
	contains "$tmp/out" "^compile +ok" "the former reference compiles against the new one"
	contains "$tmp/out" "^verdict +not_run" "and stops at not_run without a GPU (no ABI error)"
fi
cp -R "$d" "$tmp/once"
expect 2 "a former reference cannot be swapped back in" -- python3 "$swap" --tasks "$root" "$id" pass_former_reference.cu
contains "$tmp/err" "swapped before" "the refusal says why (undo with git)"
if diff -r "$tmp/once" "$d" >/dev/null; then ok "that refusal wrote nothing"; else no "that refusal wrote nothing"; fi
# a second swap: the reference of the first becomes pass_former_reference_2.cu, the stages line stays
expect 0 "a second swap, --stages" -- python3 "$swap" --tasks "$root" --stages --date 2026-12-02 "$id" pass_fused_per_output.cu
contains "$tmp/out" "former reference -> examples/pass_former_reference_2.cu; task.ini keeps stages" "it names the second former reference"
tail -n +4 "$d/examples/pass_former_reference_2.cu" | cmp -s - "$tmp/once/reference.cu" &&
	ok "the first swap's reference is kept whole" || no "the first swap's reference is kept whole"
cmp -s "$tmp/once/examples/pass_former_reference.cu" "$d/examples/pass_former_reference.cu" &&
	ok "the first former reference is untouched" || no "the first former reference is untouched"
cmp -s "$tmp/once/task.ini" "$d/task.ini" && ok "task.ini is unchanged" || no "task.ini is unchanged"
contains "$d/reference.cu" "examples/pass_former_reference_2.cu, whose header" "the new reference points at its former one"
expect 0 "kbx loads the task swapped twice" -- env KBX_TASKS="$root" "$kbx" show "$id"
exit $fail
