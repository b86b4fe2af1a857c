# @kbx task Quantization/matmul_w8a8
# @kbx expect pass
# W8A8 with dynamic quantization, as the task states it: per-row activation scales and
# per-column weight scales (amax / 127) derived at run time by one absmax kernel, then a tiled
# matmul that quantizes both tiles on the fly (round half to even, clamp to [-127, 127], int8),
# accumulates int8 x int8 products in int32 with tl.dot and dequantizes as acc * sx[i] * sw[j].
import torch
import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice
except ImportError:  # older Triton 3.x
    from triton.language.extra.cuda import libdevice


@triton.jit
def _absmax_scale(x_ptr, scale_ptr, count, length, stride_vec, stride_elem, BLOCK: tl.constexpr):
    """scale[v] = max_j |x[v * stride_vec + j * stride_elem]| / 127 for each of `count` vectors."""
    v = tl.program_id(0)
    amax = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, length, BLOCK):
        j = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + v * stride_vec + j * stride_elem, mask=j < length, other=0.0)
        amax = tl.maximum(amax, tl.abs(x))
    tl.store(scale_ptr + v, tl.max(amax, axis=0) / 127.0)


@triton.jit
def _quantize(x, scale):
    q = libdevice.rint(x / scale)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    return tl.where(scale > 0, q, 0.0).to(tl.int8)


@triton.jit
def _w8a8_matmul(a_ptr, w_ptr, sx_ptr, sw_ptr, y_ptr, M, N, K,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    rm = (pid // tiles_n) * BM + tl.arange(0, BM)
    rn = (pid % tiles_n) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    sx = tl.load(sx_ptr + rm, mask=rm < M, other=0.0)
    sw = tl.load(sw_ptr + rn, mask=rn < N, other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(_quantize(a, sx[:, None]), _quantize(w, sw[None, :]), out_dtype=tl.int32)
    y = acc.to(tl.float32) * sx[:, None] * sw[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_w8a8(input, weight):
    a = input.contiguous()
    w = weight.contiguous()
    M, K = a.shape
    N = w.shape[1]
    y = torch.empty((M, N), dtype=torch.float32, device=a.device)
    if M == 0 or N == 0:
        return y
    sx = torch.empty(M, dtype=torch.float32, device=a.device)
    sw = torch.empty(N, dtype=torch.float32, device=a.device)
    _absmax_scale[(M,)](a, sx, M, K, K, 1, BLOCK=256)
    _absmax_scale[(N,)](w, sw, N, K, 1, N, BLOCK=256)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    _w8a8_matmul[grid](a, w, sx, sw, y, M, N, K, BM=64, BN=64, BK=64)
    return y
