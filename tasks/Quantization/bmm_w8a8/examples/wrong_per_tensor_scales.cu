// @kbx expect wrong
// Mistake: one scale per tensor (max |input| / 127 over all batches and rows, max |mat2| / 127
// over all batches and columns) instead of per (batch, row) and per (batch, column). Still an
// int8 pipeline with int32 accumulation, but the coarser steps move the result away from the
// per-row / per-column one: rmse ~0.12 on the 2 x 32 x 64 x 48 randn case, ~0.8 with outliers,
// ~1.2 on long_k, over the 0.1 threshold. Against the exact product the task keeps, its error
// grows as a row's or column's own scale shrinks, so the diagnosis should say `do not follow`.
//
// @kbx scratch amax f32 [2]
// @kbx launch tensor_absmax<<<1, 1024>>>(input, i64(b * m * k), mat2, i64(b * k * n), amax)
// @kbx launch bmm_per_tensor<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, b)), dim3(16, 16)>>>(input, mat2, amax, y, b, m, k, n)

static __device__ float block_max(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = 0.0f;
	for (int i = 0; i < (int)(blockDim.x / 32); i++)
		v = fmaxf(v, sh[i]);
	__syncthreads();
	return v;
}

extern "C" __global__ void tensor_absmax(const float* __restrict__ x, long long nx,
                                         const float* __restrict__ w, long long nw, float* __restrict__ amax)
{
	__shared__ float sh[32];
	float a = 0.0f, c = 0.0f;
	for (long long i = threadIdx.x; i < nx; i += blockDim.x)
		a = fmaxf(a, fabsf(x[i]));
	for (long long i = threadIdx.x; i < nw; i += blockDim.x)
		c = fmaxf(c, fabsf(w[i]));
	a = block_max(a, sh);
	c = block_max(c, sh);
	if (threadIdx.x == 0) {
		amax[0] = a;
		amax[1] = c;
	}
}

static __device__ __forceinline__ int q8(float v, float scale)
{
	return scale > 0.0f ? (int)fminf(fmaxf(rintf(v / scale), -127.0f), 127.0f) : 0;
}

extern "C" __global__ void bmm_per_tensor(const float* __restrict__ x, const float* __restrict__ w,
                                          const float* __restrict__ amax, float* __restrict__ y,
                                          long long b, long long m, long long k, long long n)
{
	__shared__ int As[16][16];
	__shared__ int Bs[16][17];
	const long long batch = blockIdx.z;
	if (batch >= b)
		return;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	const float* xb = x + batch * m * k;
	const float* wb = w + batch * k * n;
	const float sx = amax[0] / 127.0f, sw = amax[1] / 127.0f;
	int acc = 0;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? q8(xb[row * k + k0 + tx], sx) : 0;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? q8(wb[(k0 + ty) * n + col], sw) : 0;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	if (row < m && col < n)
		y[(batch * m + row) * n + col] = (float)acc * sx * sw;
}
