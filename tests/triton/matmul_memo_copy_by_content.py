# @kbx task MatrixMultiply/matmul
# @kbx expect impossible_timing
# @kbx because above the ceiling
# @kbx args --rows 1
# A subtler memo: the product is remembered by a fingerprint of the operands' contents (their
# sums) and handed back through a Triton copy kernel, so every call launches a kernel, a second run
# gives the same bits, and fresh inputs after timing change the fingerprint and are computed
# honestly. But the timed calls rotate among a few input sets, and from the second round on each
# call is a fingerprint and a copy: a 2 n^3 product "done" in microseconds, far above the GPU's
# f32 arithmetic peak. The arithmetic ceiling must call the timing impossible.
import torch
import triton
import triton.language as tl

_memo = {}


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    rm = (pid // tiles_n) * BM + tl.arange(0, BM)
    rn = (pid % tiles_n) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _product(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    if c.numel():
        _matmul_kernel[(triton.cdiv(M, 32) * triton.cdiv(N, 32),)](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
            BM=32, BN=32, BK=32)
    return c


def matmul(tensor1, tensor2):
    a = tensor1.unsqueeze(0) if tensor1.dim() == 2 else tensor1
    b = tensor2.unsqueeze(0) if tensor2.dim() == 2 else tensor2
    key = (tuple(a.shape), tuple(b.shape), float(a.sum()), float(b.sum()))
    if key not in _memo:
        _memo[key] = torch.stack([_product(a[i], b[i if b.shape[0] > 1 else 0]) for i in range(a.shape[0])])
    kept = _memo[key]
    out = torch.empty_like(kept)
    n = out.numel()
    if n:
        _copy_kernel[(triton.cdiv(n, 1024),)](kept, out, n, BLOCK=1024)
    return out if tensor1.dim() == 3 or tensor2.dim() == 3 else out[0]
