# @kbx task Math/mul_fp16
# @kbx expect pass
# A kernel wrapped in PyTorch glue, as many KernelBenchX candidates are: the operands broadcast
# with expand and made contiguous, converted to f32 with .to(), the product written by a Triton
# kernel into a buffer from torch.zeros, and converted back to f16 with .to(). The f32 product of
# two f16 values is exact, so rounding it once to f16 gives PyTorch's f16 mul bit for bit.
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_kernel(a_ptr, b_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0)
    tl.store(y_ptr + offsets, a * b, mask=mask)


def mul_fp16(input, other):
    a, b = torch.broadcast_tensors(input, other)
    a = a.contiguous().to(torch.float32)
    b = b.contiguous().to(torch.float32)
    y = torch.zeros(a.shape, dtype=torch.float32, device=a.device)
    n = y.numel()
    if n:
        _mul_kernel[(triton.cdiv(n, 1024),)](a, b, y, n, BLOCK_SIZE=1024)
    return y.to(torch.float16)
