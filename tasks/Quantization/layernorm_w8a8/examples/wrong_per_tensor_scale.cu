// @kbx expect wrong
// Mistake: one output scale for the whole tensor (max |z| over all rows / 127) instead of one per
// row. Still a quantize-dequantize step, but on large_affine (weights randn * 20) the rows' ranges
// differ and the tensor-wide steps are coarser than each row's: rmse ~0.4 against the per-row
// reference, over the 0.1 threshold (the KernelBenchX outlier draws with affine parameters often
// miss it too).
// Against the exact result the task keeps, its error grows as a row's own scale shrinks (a CPU
// model of kbx's lens on kbx's inputs: log-log slope about -1 on random_outlier_16x512(_affine)
// and large_affine), so the diagnosis should say `do not follow each row's range`. Rounded on the
// coarser tensor-wide grid, a row's largest values also land past its own 127 steps; that is the
// coarser scale, not a missing clamp.
//
// @kbx scratch row_amax f32 [rows]
// @kbx scratch tensor_scale f32 [1]
// @kbx launch layernorm_rows<<<max(1, rows), 256>>>(input, weight, bias, y, row_amax, rows, d, eps)
// @kbx launch max_of_rows<<<1, 1024>>>(row_amax, rows, tensor_scale)
// @kbx launch requantize<<<max(1, cdiv(rows * d, 256)), 256>>>(y, tensor_scale, i64(rows * d))

static __device__ float block_reduce(float v, bool is_max, float* sh)
{
	for (int off = 16; off > 0; off >>= 1) {
		const float o = __shfl_xor_sync(0xffffffffu, v, off);
		v = is_max ? fmaxf(v, o) : v + o;
	}
	__syncthreads();
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = sh[0];
	for (int w = 1; w < (int)(blockDim.x / 32); w++)
		v = is_max ? fmaxf(v, sh[w]) : v + sh[w];
	return v;
}

// f32 layer norm of one row into y, and the row's max |z|
extern "C" __global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ weight,
                                          const float* __restrict__ bias, float* __restrict__ y,
                                          float* __restrict__ row_amax, long long rows, long long d, float eps)
{
	__shared__ float sh[32];
	const long long row = blockIdx.x;
	if (row >= rows)
		return;
	const float* xr = x + row * d;
	float s = 0.0f;
	for (long long i = threadIdx.x; i < d; i += blockDim.x)
		s += xr[i];
	const float mean = block_reduce(s, false, sh) / (float)d;
	float ss = 0.0f;
	for (long long i = threadIdx.x; i < d; i += blockDim.x)
		ss += (xr[i] - mean) * (xr[i] - mean);
	const float rstd = 1.0f / sqrtf(block_reduce(ss, false, sh) / (float)d + eps);
	float amax = 0.0f;
	for (long long i = threadIdx.x; i < d; i += blockDim.x) {
		const float z = (xr[i] - mean) * rstd * weight[i] + bias[i];
		y[row * d + i] = z;
		amax = fmaxf(amax, fabsf(z));
	}
	amax = block_reduce(amax, true, sh);
	if (threadIdx.x == 0)
		row_amax[row] = amax;
}

extern "C" __global__ void max_of_rows(const float* __restrict__ row_amax, long long rows,
                                       float* __restrict__ tensor_scale)
{
	__shared__ float sh[32];
	float a = 0.0f;
	for (long long i = threadIdx.x; i < rows; i += blockDim.x)
		a = fmaxf(a, row_amax[i]);
	a = block_reduce(a, true, sh);
	if (threadIdx.x == 0)
		tensor_scale[0] = a / 127.0f;
}

extern "C" __global__ void requantize(float* __restrict__ y, const float* __restrict__ tensor_scale, long long n)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float scale = tensor_scale[0];
	if (i < n)
		y[i] = scale > 0.0f ? fminf(fmaxf(rintf(y[i] / scale), -127.0f), 127.0f) * scale : 0.0f;
}
