#!/bin/sh
# GPU tests: every reference passes every case; every example gets the verdict its first line
# announces. The planted bugs live in tests/adversarial/ (its gpu.sh). Skips (77) without a CUDA
# device.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu

fail=0

# Every task, KBX_GPU_JOBS at a time (one GPU runs several short verifications side by side).
# Each line is printed as its task ends (a run cut short by a time limit still shows how far it
# got), then the whole sorted by task.
ls "$srcdir"/tasks/*/*/task.ini | xargs -n 1 dirname | xargs -P "${KBX_GPU_JOBS:-1}" -n 1 sh "$srcdir/tests/gpu/check_task.sh" "$kbx" \
	2>&1 | tee "$tmp/tasks.log" | sed -u 's/^/# /'
echo "# ---- by task"
# a source's triage lines (indented) travel with it through the sort
awk 'BEGIN { ORS = "" } /^       / { print "\037" $0; next } { if (NR > 1) print "\n"; print } END { print "\n" }' \
	"$tmp/tasks.log" | sort -k3 | tr '\037' '\n'
grep -q '^FAIL' "$tmp/tasks.log" && fail=1

exit $fail
