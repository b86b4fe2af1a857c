// @kbx expect wrong
// Mistake: the triangular shortcut without its NaN rule. Row i only sums k <= i, which is the
// right value for finite data, but torch.mm(torch.tril(A), B) multiplies tril's zeros too, and
// 0 * inf = NaN: an inf (or NaN) in B[k, j] must make y[i, j] NaN for all i < k. Passes every
// finite case, fails special_values and special_far_rows.
//
// @kbx launch tril_skip<<<dim3(max(1, cdiv(p, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(A, B, y, n, p, alpha, beta)

#define T 16

extern "C" __global__ void tril_skip(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ y,
                                     long long n, long long p, float alpha, float beta)
{
	__shared__ float As[T][T + 1];
	__shared__ float Bs[T][T + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row0 = (long long)blockIdx.y * T;
	const long long row = row0 + ty;
	const long long col = (long long)blockIdx.x * T + tx;
	const long long kend = min(n, row0 + T);
	float acc = 0.0f;
	for (long long k0 = 0; k0 < kend; k0 += T) {
		long long ka = k0 + tx;
		As[ty][tx] = (row < n && ka <= row) ? A[row * n + ka] : 0.0f;
		Bs[ty][tx] = (k0 + ty < n && col < p) ? B[(k0 + ty) * p + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < T; kk++)
			if (k0 + kk <= row) // skip the zeros instead of multiplying them
				acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < n && col < p)
		y[row * p + col] = beta * (alpha * acc);
}
