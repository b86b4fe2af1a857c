# @kbx task Math/softmax
# @kbx expect pass
# Softmax along any dim without moving data: the input is viewed as [outer, length, inner] and
# each program handles one (outer, inner) line with stride inner, in three passes over it: the
# max, the sum of exp(x - max), then the outputs. Rows of -inf give NaN, as in PyTorch.
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_lines(x_ptr, y_ptr, length, inner, BLOCK: tl.constexpr):
    line = tl.program_id(0).to(tl.int64)
    base = (line // inner) * length * inner + line % inner
    m = tl.full([BLOCK], float('-inf'), tl.float32)
    for start in range(0, length, BLOCK):
        j = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + j * inner, mask=j < length, other=float('-inf'))
        m = tl.maximum(m, x)
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, length, BLOCK):
        j = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + j * inner, mask=j < length, other=float('-inf'))
        s += tl.where(j < length, tl.exp(x - row_max), 0.0)
    total = tl.sum(s, axis=0)
    for start in range(0, length, BLOCK):
        j = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + j * inner, mask=j < length, other=0.0)
        tl.store(y_ptr + base + j * inner, tl.exp(x - row_max) / total, mask=j < length)


def softmax(input, dim, dtype=None):
    x = input.contiguous() if dtype is None else input.to(dtype).contiguous()
    dim = dim % x.dim()
    length = x.shape[dim]
    inner = 1
    for s in x.shape[dim + 1:]:
        inner *= s
    y = torch.empty_like(x)
    lines = x.numel() // length if length else 0
    if lines:
        block = min(1024, max(16, triton.next_power_of_2(length)))
        _softmax_lines[(lines,)](x, y, length, inner, BLOCK=block)
    return y
