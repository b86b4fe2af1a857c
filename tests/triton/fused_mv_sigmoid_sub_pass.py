# @kbx task Fusion/fused_mv_sigmoid_sub
# @kbx expect pass
# A Fusion task in two kernels: the matrix-vector product (each row's dot product accumulated in
# f64 and rounded once, as the reference does) into an f32 buffer z, then sigmoid(z) - alpha *
# other elementwise, other a tensor or a Python number.
import torch
import triton
import triton.language as tl


@triton.jit
def _mv_kernel(a_ptr, v_ptr, z_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for start in range(0, n_cols, BLOCK):
        j = start + tl.arange(0, BLOCK)
        a = tl.load(a_ptr + row * n_cols + j, mask=j < n_cols, other=0.0)
        v = tl.load(v_ptr + j, mask=j < n_cols, other=0.0)
        acc += a.to(tl.float64) * v.to(tl.float64)
    tl.store(z_ptr + row, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _sigmoid_sub_kernel(z_ptr, other_ptr, other_value, y_ptr, n, alpha,
                        OTHER_IS_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    z = tl.load(z_ptr + offs, mask=mask, other=0.0)
    s = 1.0 / (1.0 + tl.exp(-z))
    if OTHER_IS_TENSOR:
        o = tl.load(other_ptr + offs, mask=mask, other=0.0)
    else:
        o = other_value
    tl.store(y_ptr + offs, s - alpha * o, mask=mask)


def fused_mv_sigmoid_sub(input, vec, other, alpha=1, *, out=None):
    a = input.contiguous()
    v = vec.contiguous()
    n, m = a.shape
    y = torch.empty(n, dtype=torch.float32, device=a.device) if out is None else out
    if n == 0:
        return y
    z = torch.empty(n, dtype=torch.float32, device=a.device)
    _mv_kernel[(n,)](a, v, z, m, BLOCK=256)
    tensor = isinstance(other, torch.Tensor)
    _sigmoid_sub_kernel[(triton.cdiv(n, 1024),)](z, other.contiguous() if tensor else z,
                                                 0.0 if tensor else float(other), y, n, float(alpha),
                                                 OTHER_IS_TENSOR=tensor, BLOCK=1024)
    return y
