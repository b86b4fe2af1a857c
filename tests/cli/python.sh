#!/bin/sh
# Python/Triton candidates (KernelBenchX's format) without a GPU or PyTorch, as CI has them: the
# language is told by the file's name or content, a syntax error is reported on its line by
# Python (never by NVRTC), a module that parses is not_run naming what is missing, a missing
# interpreter is named, and `kbx eval` takes Python items (fenced or not) beside CUDA ones.
# Where PyTorch and a GPU are present the runs are real: tests/gpu/triton_py.sh checks those.
. "${KBX_SRCDIR:-.}/tests/cli/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "# no python3"; exit 77; }
has_torch=0
python3 -c 'import torch' >/dev/null 2>&1 && has_torch=1

cat >"$tmp/bad.py" <<'PY'
import torch
import triton

def gelu(input, approximate='none'):
    return input +
PY
expect 1 "a syntax error is compile_error" -- "$kbx" run Activation/gelu "$tmp/bad.py" --no-history
contains "$tmp/out" "verdict +compile_error" "verdict compile_error"
contains "$tmp/out" "line 5:[0-9]+ +error: SyntaxError" "reported on its line, by Python"
lacks "$tmp/out" "NVRTC|identifier .* is undefined" "never by NVRTC"
expect 1 "the same as JSON" -- "$kbx" run Activation/gelu "$tmp/bad.py" --no-history --json
contains "$tmp/out" '"arch": "python"' "the compile step is Python's"
contains "$tmp/out" '"line": 5' "the diagnostic's line"

cat >"$tmp/ok.py" <<'PY'
import torch
import triton
import triton.language as tl

@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

def gelu(input, approximate='none'):
    out = torch.empty_like(input)
    _copy[(triton.cdiv(input.numel(), 1024),)](input, out, input.numel(), BLOCK=1024)
    return out
PY
if [ $has_torch = 0 ]; then
	expect 1 "a module that parses, without PyTorch" -- "$kbx" run Activation/gelu "$tmp/ok.py" --no-history
	contains "$tmp/out" "verdict +not_run" "verdict not_run"
	contains "$tmp/out" "PyTorch is not installed for .*python" "says what is missing, for which interpreter"
	# the same text, pasted with no name: told by its content (kbx eval, a folder of one file)
fi
expect 1 "an interpreter that does not exist" -- "$kbx" run Activation/gelu "$tmp/ok.py" --no-history --python /nonexistent/python3
contains "$tmp/out" "verdict +not_run" "not_run"
contains "$tmp/out" "no Python interpreter '/nonexistent/python3'" "names the interpreter"
KBX_PYTHON=/nonexistent/py expect 1 "KBX_PYTHON is honoured" -- "$kbx" run Activation/gelu "$tmp/ok.py" --no-history
contains "$tmp/out" "'/nonexistent/py' \(from KBX_PYTHON\)" "names KBX_PYTHON's interpreter"

# The evidence a task requires is read in Python too (tasks/rules.ini, evidence_of): an fp32
# Triton matmul shows none of it, the quantizing candidate all of it (the note comes before the
# worker loads anything, so it shows without PyTorch or a GPU too)
# (the exit status depends on whether they can run here: not checked)
w8a8="$srcdir/tests/triton"
"$kbx" run Quantization/matmul_w8a8 "$w8a8/matmul_w8a8_fp32_no_quant.py" --no-history --no-perf >"$tmp/out" 2>&1
contains "$tmp/out" "lacks evidence this task requires, so it cannot pass: round_to_int .*clamp_to_range .*int_accumulate" "an fp32 Triton matmul lacks matmul_w8a8's evidence, read the Python way"
"$kbx" run Quantization/matmul_w8a8 "$w8a8/matmul_w8a8_pass.py" --no-history --no-perf >"$tmp/out" 2>&1
lacks "$tmp/out" "lacks evidence" "the quantizing Triton candidate shows all of it"
"$kbx" run Quantization/matmul_w8a8 "$w8a8/matmul_w8a8_fp32_no_quant.py" --allow-pytorch --no-perf >"$tmp/out" 2>&1
lacks "$tmp/out" "lacks evidence" "--allow-pytorch asks no evidence of a PyTorch function"
contains "$tmp/out" "--allow-pytorch: PyTorch ops may compute the outputs" "and says what the run is"

# kbx eval: a KernelBenchX predictions.jsonl with a fenced Python item, an unfenced one, a
# Python syntax error and a CUDA item
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
ok = open(tmp + "/ok.py").read()
bad = open(tmp + "/bad.py").read()
with open(tmp + "/pred.jsonl", "w") as f:
    f.write(json.dumps({"file": "Activation/gelu.py", "predict": "Here:\n```python\n" + ok + "```\n"}) + "\n")
    f.write(json.dumps({"file": "Activation/relu.py", "predict": bad.replace("gelu(input, approximate='none')", "relu(input)")}) + "\n")
PY
ref="$srcdir/tasks/Activation/gelu/reference.cu"
python3 -c 'import json,sys; print(json.dumps({"file": "Activation/gelu.py", "predict": open(sys.argv[1]).read()}))' "$ref" >>"$tmp/pred.jsonl"
expect 0 "eval of Python and CUDA items" -- "$kbx" eval "$tmp/pred.jsonl" --out "$tmp/ev" --quiet --no-perf
contains "$tmp/ev/progress.jsonl" '"line 2".*"compile_error"|"compile_error".*"line 2"' "the Python syntax error is compile_error"
lacks "$tmp/ev/progress.jsonl" "identifier .*undefined" "no Python item went to NVRTC"
if [ $has_torch = 0 ]; then
	contains "$tmp/ev/progress.jsonl" '"line 1".*"not_run"|"not_run".*"line 1"' "the fenced Python item loads up to what is missing"
fi
contains "$tmp/ev/progress.jsonl" '"line 3".*"(not_run|pass)"|"(not_run|pass)".*"line 3"' "the CUDA item as before"

# a folder of .py and .cu files
mkdir -p "$tmp/dir/Activation"
cp "$tmp/bad.py" "$tmp/dir/Activation/gelu.py"
expect 0 "eval of a folder with a .py file" -- "$kbx" eval "$tmp/dir" --out "$tmp/ev2" --quiet --no-perf
contains "$tmp/ev2/progress.jsonl" "compile_error" "the .py file is taken, as Python"
exit $fail
