# @kbx task Reduce/sum
# @kbx expect pass
# A row reduction: the reduced dims are moved last (PyTorch glue, a copy only when they are not
# already), then each row is summed in two deterministic stages: fixed chunks of a row summed in
# f64 into partials, then the partials of each row summed in f64 and rounded once to f32, as
# the task's reference does (an f32 tree would miss atol 1e-5 on rows that cancel).
import torch
import triton
import triton.language as tl

CHUNK = 16384


@triton.jit
def _partial_sums(x_ptr, part_ptr, row_len, n_chunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    base = row.to(tl.int64) * row_len
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for start in range(0, CHUNK, BLOCK):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < row_len, other=0.0)
        acc += x.to(tl.float64)
    tl.store(part_ptr + row * n_chunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def _finish_rows(part_ptr, y_ptr, n_chunks, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for start in range(0, n_chunks, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + row * n_chunks + idx, mask=idx < n_chunks, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(tl.float32))


def sum(input, dim, keepdim=False, dtype=None):
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = sorted(d % input.dim() for d in dims)
    kept = [d for d in range(input.dim()) if d not in dims]
    x = input.permute(kept + dims).contiguous()
    out_shape = [input.shape[d] if d in kept else 1 for d in range(input.dim())] if keepdim \
        else [input.shape[d] for d in kept]
    rows = 1
    for d in kept:
        rows *= input.shape[d]
    row_len = x.numel() // rows if rows else 0
    y = torch.empty(rows, dtype=torch.float32, device=input.device)
    if rows:
        n_chunks = max(1, triton.cdiv(row_len, CHUNK))
        part = torch.empty((rows, n_chunks), dtype=torch.float64, device=input.device)
        _partial_sums[(rows, n_chunks)](x, part, row_len, n_chunks, CHUNK=CHUNK, BLOCK=1024)
        _finish_rows[(rows,)](part, y, n_chunks, BLOCK=1024)
    y = y.reshape(out_shape)
    return y if dtype is None else y.to(dtype)
