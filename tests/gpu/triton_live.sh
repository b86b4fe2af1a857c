#!/bin/sh
# A Triton kernel compiled by the Triton of this machine, on its GPU, as a kbx candidate: gelu
# is launched once through Triton's own JIT (which fills a fresh TRITON_CACHE_DIR), then that
# cache entry is verified and timed by `kbx run gelu --triton ENTRY`. The fixtures of
# tests/cli/triton.sh were compiled elsewhere; this is the live path. Skips (77) without a CUDA
# device or without python3 with torch and triton.
. "${KBX_SRCDIR:-.}/tests/gpu/lib.sh"

need_gpu
if ! python3 -c 'import torch, triton; assert torch.cuda.is_available()' 2>/dev/null; then
	echo "SKIP: python3 with torch (CUDA) and triton needed"
	exit 77
fi

# Triton reads a @jit function's source from its file: the script must be one
cat >"$tmp/gelu_jit.py" <<'PY'
import torch, triton
import triton.language as tl

@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, approximate, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    erf_y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
    tanh_y = 0.5 * x * (1.0 + t)
    y = tl.where(approximate != 0, tanh_y, erf_y)
    tl.store(y_ptr + offs, y, mask=mask)

# Triton specialises a launch on its integer arguments (n divisible by 16 gets a kernel that
# assumes it, and that kernel writes past the end of other sizes: kbx's guard zones catch it);
# an odd n gives the general kernel, the one that is a candidate for every case
n = (1 << 20) + 1
x = torch.randn(n, device="cuda")
y = torch.empty_like(x)
gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, 0, BLOCK=1024)
torch.cuda.synchronize()
err = (y - torch.nn.functional.gelu(x)).abs().max().item()
print("triton", triton.__version__, "torch", torch.__version__, "max error vs F.gelu", err)
PY
TRITON_CACHE_DIR="$tmp/cache" python3 "$tmp/gelu_jit.py" >"$tmp/jit.txt" 2>&1
cat "$tmp/jit.txt"
entry=$(dirname "$(find "$tmp/cache" -name 'gelu_kernel.json' | head -n 1)")
if [ ! -f "$entry/gelu_kernel.json" ]; then
	echo "FAIL: no gelu_kernel entry in the Triton cache"
	find "$tmp/cache" | head -20
	exit 1
fi
echo "entry: $(ls "$entry" | tr '\n' ' ')"
"$kbx" run gelu --triton "$entry" --launch 'gelu_kernel<<<cdiv(n, 1024)>>>(x, y, i32(n), approximate)' \
	--rows 3 >"$tmp/run.txt" 2>&1
rc=$?
cat "$tmp/run.txt"
if [ $rc -ne 0 ] || ! grep -qE 'verdict +pass' "$tmp/run.txt"; then
	echo "FAIL: the live Triton gelu did not pass (status $rc)"
	exit 1
fi
echo "ok: the live Triton gelu passes and is timed"
