// @kbx task Quantization/matmul_w8a8
// @kbx expect wrong
// @kbx because (missing round_to_int .*clamp_to_range|misses its metric thresholds)
// Quantization evidence in disguise: the per-row and per-column scales of the contract, but
// the "rounding" is __float2int_rz (truncation toward zero), the "clamp" is a comparison whose
// result is thrown away, and 127 appears only in the scale. The old evidence rules took all three
// for rounding and clamping; the rules must not (tests/core/test_rules.c has the same spellings).
// @kbx scratch row_amax f32 [m]
// @kbx scratch col_amax f32 [n]
// @kbx launch row_absmax<<<max(1, cdiv(m, 8)), 256>>>(input, row_amax, m, k)
// @kbx launch col_absmax<<<max(1, cdiv(n, 256)), 256>>>(weight, col_amax, k, n)
// @kbx launch gemm_q<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, weight, row_amax, col_amax, y, m, k, n)

extern "C" __global__ void row_absmax(const float* __restrict__ x, float* __restrict__ amax_out,
                                      long long m, long long k)
{
	const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (row >= m)
		return;
	float a = 0.0f;
	for (long long j = lane; j < k; j += 32)
		a = fmaxf(a, fabsf(x[row * k + j]));
	for (int off = 16; off > 0; off >>= 1)
		a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, off));
	if (lane == 0)
		amax_out[row] = a;
}

extern "C" __global__ void col_absmax(const float* __restrict__ w, float* __restrict__ amax_out,
                                      long long k, long long n)
{
	const long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (col >= n)
		return;
	float a = 0.0f;
	for (long long i = 0; i < k; i++)
		a = fmaxf(a, fabsf(w[i * n + col]));
	amax_out[col] = a;
}

static __device__ __forceinline__ int q8(float v, float inv)
{
	int q = __float2int_rz(v * inv);
	if (q > 127 || q < -127) { }
	return q;
}

extern "C" __global__ void gemm_q(const float* __restrict__ x, const float* __restrict__ w,
                                  const float* __restrict__ row_amax, const float* __restrict__ col_amax,
                                  float* __restrict__ y, long long m, long long k, long long n)
{
	__shared__ int As[16][16];
	__shared__ int Bs[16][17];
	__shared__ float inv_row[16], inv_col[16];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	if (ty == 0) {
		long long r = (long long)blockIdx.y * 16 + tx;
		float a = r < m ? row_amax[r] : 0.0f;
		inv_row[tx] = a > 0.0f ? 127.0f / a : 0.0f;
		float b = col < n ? col_amax[col] : 0.0f;
		inv_col[tx] = b > 0.0f ? 127.0f / b : 0.0f;
	}
	__syncthreads();
	int acc = 0;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? q8(x[row * k + k0 + tx], inv_row[ty]) : 0;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? q8(w[(k0 + ty) * n + col], inv_col[tx]) : 0;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	if (row < m && col < n) {
		float sx = row_amax[row] / 127.0f, sw = col_amax[col] / 127.0f;
		y[row * n + col] = (float)acc * (sx * sw);
	}
}
