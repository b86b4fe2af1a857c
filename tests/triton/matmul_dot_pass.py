# @kbx task MatrixMultiply/matmul
# @kbx expect pass
# A tiled tl.dot matmul, batched over the leading dim, with full-f32 products
# (input_precision="ieee": TF32 would miss the task's 1e-5) and masked edge tiles.
import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    tiles_n = tl.cdiv(N, BN)
    rm = (pid // tiles_n) * BM + tl.arange(0, BM)
    rn = (pid % tiles_n) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + batch * sab + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + batch * sbb + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + batch * scb + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(tensor1, tensor2):
    a = tensor1.unsqueeze(0) if tensor1.dim() == 2 else tensor1
    b = tensor2.unsqueeze(0) if tensor2.dim() == 2 else tensor2
    batch, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((batch, M, N), dtype=torch.float32, device=a.device)
    if c.numel():
        grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32), batch)
        _matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), a.stride(2),
                             b.stride(0) if b.shape[0] > 1 else 0, b.stride(1), b.stride(2),
                             c.stride(0), c.stride(1), c.stride(2), BM=32, BN=32, BK=32)
    return c if tensor1.dim() == 3 or tensor2.dim() == 3 else c[0]
