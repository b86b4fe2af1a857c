"""Make tests/data/triton/gelu-tma-3.6 (see README.md): gelu through device-side tensor
descriptors, which Triton 3.6 keeps in its global scratch memory (global_scratch_size 256).

    TRITON_DISABLE_LINE_INFO=1 TRITON_CACHE_DIR=/tmp/c python make_gelu_tma.py
"""
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def gelu_tma_kernel(x_ptr, y_ptr, n, approximate, BLOCK: tl.constexpr):
    # y = gelu(x) through device-side tensor descriptors (TMA on sm_90): Triton keeps the
    # descriptors in its global scratch memory, one slot per program
    pid = tl.program_id(0)
    xd = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    yd = tl.make_tensor_descriptor(y_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    x = xd.load([pid * BLOCK])
    erf_y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
    tanh_y = 0.5 * x * (1.0 + t)
    y = tl.where(approximate != 0, tanh_y, erf_y)
    yd.store([pid * BLOCK], y)

sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "approximate": "i32", "BLOCK": "constexpr"}
src = ASTSource(fn=gelu_tma_kernel, signature=sig, constexprs={"BLOCK": 1024},
                attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
k = triton.compile(src, target=GPUTarget("cuda", 90, 32))
print(triton.__version__, k.metadata.global_scratch_size, k.metadata.global_scratch_align)
