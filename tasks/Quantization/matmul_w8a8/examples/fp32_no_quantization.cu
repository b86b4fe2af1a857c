// @kbx expect wrong
// Mistake: skips quantization altogether and returns the exact f32 product (what KernelBenchX's
// own reference computes). Against this task's quantizing reference that is off by the int8
// quantization error itself (rmse ~0.16 on the 32 x 256 x 128 randn case, ~0.5 with outliers),
// but it is the exact result, which [tolerance] exact accepts as KernelBenchX does: what makes it
// wrong here is the task's demand for int8 arithmetic, which the static evidence rules for
// Quantization tasks check (no scale, no rounding, no int8 in the source).
//
// @kbx launch matmul_f32<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, weight, y, m, k, n)

extern "C" __global__ void matmul_f32(const float* __restrict__ x, const float* __restrict__ w,
                                      float* __restrict__ y, long long m, long long k, long long n)
{
	__shared__ float As[16][16];
	__shared__ float Bs[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? x[row * k + k0 + tx] : 0.0f;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? w[(k0 + ty) * n + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		y[row * n + col] = acc;
}
