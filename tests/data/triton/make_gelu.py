"""Make the Triton cache entries of tests/data/triton/ (see README.md).

    TRITON_DISABLE_LINE_INFO=1 TRITON_CACHE_DIR=/tmp/c python make_gelu.py

compiles gelu_kernel for sm_90 with the installed Triton (no GPU needed: ptxas comes with the
wheel) and leaves the entry in /tmp/c/<hash>/.
"""
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, approximate, BLOCK: tl.constexpr):
    # y = gelu(x): exact (erf) when approximate == 0, else the tanh approximation
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

v = tuple(int(p) for p in triton.__version__.split(".")[:2])
if v < (3, 3):
    from triton.compiler.compiler import AttrsDescriptor
    sig = {0: "*fp32", 1: "*fp32", 2: "i32", 3: "i32"}
    src = ASTSource(fn=gelu_kernel, signature=sig, constants={4: 1024},
                    attrs=AttrsDescriptor(divisible_by_16=(0, 1)))
else:
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "approximate": "i32", "BLOCK": "constexpr"}
    src = ASTSource(fn=gelu_kernel, signature=sig, constexprs={"BLOCK": 1024},
                    attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
k = triton.compile(src, target=GPUTarget("cuda", 90, 32))
print(triton.__version__, k.hash)
