// @kbx expect wrong
// Mistake: one scale per tensor (max |input| / 127 and max |weight| / 127 over the whole tensors)
// instead of per activation row and per weight column. Still an int8 pipeline with int32
// accumulation, but the coarser steps add error (rmse ~0.25 against the per-row / per-column
// result on the 32 x 256 x 128 randn case, ~2 with outliers), over the 0.1 threshold. Against the
// exact product the task keeps, its error grows as a row's or column's own scale shrinks, so the
// diagnosis should say `do not follow`.
//
// @kbx scratch scales f32 [2]
// @kbx launch tensor_absmax<<<1, 1024>>>(input, i64(m * k), weight, i64(k * n), scales)
// @kbx launch gemm_per_tensor<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, weight, scales, y, m, k, n)

static __device__ float block_max(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = 0.0f;
	for (int w = 0; w < (int)(blockDim.x / 32); w++)
		v = fmaxf(v, sh[w]);
	__syncthreads();
	return v;
}

extern "C" __global__ void tensor_absmax(const float* __restrict__ x, long long nx,
                                         const float* __restrict__ w, long long nw,
                                         float* __restrict__ scales)
{
	__shared__ float sh[32];
	float a = 0.0f, b = 0.0f;
	for (long long i = threadIdx.x; i < nx; i += blockDim.x)
		a = fmaxf(a, fabsf(x[i]));
	for (long long i = threadIdx.x; i < nw; i += blockDim.x)
		b = fmaxf(b, fabsf(w[i]));
	a = block_max(a, sh);
	b = block_max(b, sh);
	if (threadIdx.x == 0) {
		scales[0] = a / 127.0f;
		scales[1] = b / 127.0f;
	}
}

static __device__ __forceinline__ int q8(float v, float scale)
{
	return scale > 0.0f ? (int)fminf(fmaxf(rintf(v / scale), -127.0f), 127.0f) : 0;
}

extern "C" __global__ void gemm_per_tensor(const float* __restrict__ x, const float* __restrict__ w,
                                           const float* __restrict__ scales, float* __restrict__ y,
                                           long long m, long long k, long long n)
{
	__shared__ int As[16][16];
	__shared__ int Bs[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	const float sx = scales[0], sw = scales[1];
	int acc = 0;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? q8(x[row * k + k0 + tx], sx) : 0;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? q8(w[(k0 + ty) * n + col], sw) : 0;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc += As[ty][kk] * Bs[kk][tx];
		__syncthreads();
	}
	if (row < m && col < n)
		y[row * n + col] = (float)acc * sx * sw;
}
