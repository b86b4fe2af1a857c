// @kbx expect wrong
// Mistake: skips quantization and returns the exact f32 bmm (what KernelBenchX's own reference
// computes). The source shows none of the evidence the task requires (no rounding to an integer
// grid, no clamp, no scales, no integer accumulation), so it cannot pass whatever its outputs.
// Its outputs alone would pass: they miss rmse 0.1 against the quantizing reference on the
// outlier, asymmetric-scale, prime and long-k cases (the int8 error itself, 0.1 to 0.8) but are
// the exact result that [tolerance] exact also accepts, as KernelBenchX does.
//
// @kbx launch bmm_f32<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, b)), dim3(16, 16)>>>(input, mat2, y, b, m, k, n)

extern "C" __global__ void bmm_f32(const float* __restrict__ x, const float* __restrict__ w,
                                   float* __restrict__ y, long long b, long long m, long long k, long long n)
{
	__shared__ float As[16][16];
	__shared__ float Bs[16][17];
	const long long batch = blockIdx.z;
	if (batch >= b)
		return;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	const float* xb = x + batch * m * k;
	const float* wb = w + batch * k * n;
	float total = 0.0f;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? xb[row * k + k0 + tx] : 0.0f;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? wb[(k0 + ty) * n + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			total = fmaf(As[ty][kk], Bs[kk][tx], total);
		__syncthreads();
	}
	if (row < m && col < n)
		y[(batch * m + row) * n + col] = total;
}
