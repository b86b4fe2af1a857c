# @kbx task Quantization/matmul_w8a8
# @kbx expect wrong
# @kbx because no evidence that it does what the task requires: missing round_to_int.*int_accumulate
# No quantization at all: a plain f32 tiled matmul in Triton. Its outputs are closer to the exact
# product than the reference's int8 scheme, so they land inside the task's metric thresholds
# (KernelBenchX would pass it), but it is not a w8a8 kernel: nothing is rounded to the int8 grid,
# clamped to [-127, 127] or computed on integers. The task's [static] require reads Python through
# the rules standing for its CUDA ones (tasks/rules.ini, evidence_of), as the CUDA example
# examples/fp32_no_quantization.cu is refused.
import torch
import triton
import triton.language as tl


@triton.jit
def _mm_f32(a_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    rm = (pid // tiles_n) * BM + tl.arange(0, BM)
    rn = (pid % tiles_n) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_w8a8(input, weight):
    a = input.contiguous()
    w = weight.contiguous()
    M, K = a.shape
    N = w.shape[1]
    y = torch.empty((M, N), dtype=torch.float32, device=a.device)
    if M == 0 or N == 0:
        return y
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    _mm_f32[grid](a, w, y, M, N, K, BM=32, BN=32, BK=32)
    return y
