# @kbx task Activation/gelu
# @kbx expect pass
# @kbx because work went to 1 CUDA stream\(s\) other than the one the call was made on
# @kbx args --rows 1
# A correct gelu whose kernel runs on a stream of its own and is never joined back to the
# caller's: timing events recorded on the caller's stream would close before the kernel ends and
# time only its launch (do_bench is fooled the same way). Its outputs are right, so it passes, but
# the worker notes the other stream at its first checked call and from then on makes each timed
# call synchronise the device before returning, so the kernel is inside the timing.
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n_elements, TANH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if TANH:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        y = 0.5 * x * (1.0 + t)
    else:
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y, mask=mask)


def gelu(input: torch.Tensor, approximate: str = 'none') -> torch.Tensor:
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    s = torch.cuda.Stream(device=x.device)
    s.wait_stream(torch.cuda.current_stream())   # its inputs are ready; its end is never awaited
    with torch.cuda.stream(s):
        grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)
        _gelu_kernel[grid](x, y, n, TANH=approximate == 'tanh', BLOCK_SIZE=1024)
    return y
