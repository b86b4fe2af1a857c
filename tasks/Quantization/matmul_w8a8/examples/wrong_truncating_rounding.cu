// @kbx expect wrong
// Mistake: the reference's scheme (a scale per row of input and per column of weight, int8,
// int32 accumulation) with another rounding mode: v / scale is truncated toward zero instead of
// rounded to the nearest step. Every quantized value moves by less than one step, but always
// toward zero, so the int8 error doubles and is biased; summed over k it puts the output past
// rmse 0.1 of the reference and of the exact product (farther from the exact product than the
// reference is). The quantized input is kept under the reference's name, so the first wrong
// stage reported should be `x_q`, with every error within one step: the rounding differs.
// The stage diff sees every x_q value that differs one step nearer zero: the diagnosis should say
// `truncation toward zero`.
//
// @kbx scratch x_scale f32 [m]
// @kbx scratch w_scale f32 [n]
// @kbx scratch x_q i8 [m, k]
// @kbx scratch w_q i8 [k, n]
// @kbx launch quant_rows<<<max(1, m), 256>>>(input, x_q, x_scale, m, k)
// @kbx launch quant_cols<<<max(1, cdiv(n, 32)), dim3(32, 8)>>>(weight, w_q, w_scale, k, n)
// @kbx launch gemm_i8<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64))), 256>>>(x_q, w_q, x_scale, w_scale, y, m, k, n)

static __device__ __forceinline__ signed char quantize(float v, float scale)
{
	if (!(scale > 0.0f))
		return 0;
	float q = truncf(v / scale);   /* the mistake: toward zero, not to the nearest */
	q = fminf(fmaxf(q, -127.0f), 127.0f);
	return (signed char)(int)q;
}

// One block per row: two-level max reduction (warp shuffles, then shared memory), then quantize.
extern "C" __global__ void __launch_bounds__(256)
quant_rows(const float* __restrict__ x, signed char* __restrict__ xq, float* __restrict__ sx,
           long long m, long long k)
{
	__shared__ float warp_max[8];
	const long long row = blockIdx.x;
	if (row >= m)
		return;
	const float* xr = x + row * k;
	float amax = 0.0f;
	for (long long j = threadIdx.x; j < k; j += blockDim.x)
		amax = fmaxf(amax, fabsf(xr[j]));
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	if (threadIdx.x % 32 == 0)
		warp_max[threadIdx.x / 32] = amax;
	__syncthreads();
	amax = warp_max[0];
	for (int w = 1; w < 8; w++)
		amax = fmaxf(amax, warp_max[w]);
	const float scale = amax / 127.0f;
	if (threadIdx.x == 0)
		sx[row] = scale;
	for (long long j = threadIdx.x; j < k; j += blockDim.x)
		xq[row * k + j] = quantize(xr[j], scale);
}

// One block per 32 columns: 32 x 8 threads, threadIdx.x along the (contiguous) columns, so every
// row access is coalesced; the 8 partial maxima of a column are combined in shared memory.
extern "C" __global__ void __launch_bounds__(256)
quant_cols(const float* __restrict__ wt, signed char* __restrict__ wq, float* __restrict__ sw,
           long long k, long long n)
{
	__shared__ float part[8][33];
	__shared__ float scale_s[32];
	const long long col = (long long)blockIdx.x * 32 + threadIdx.x;
	float amax = 0.0f;
	if (col < n)
		for (long long i = threadIdx.y; i < k; i += 8)
			amax = fmaxf(amax, fabsf(wt[i * n + col]));
	part[threadIdx.y][threadIdx.x] = amax;
	__syncthreads();
	if (threadIdx.y == 0) {
		for (int r = 1; r < 8; r++)
			amax = fmaxf(amax, part[r][threadIdx.x]);
		const float scale = amax / 127.0f;
		scale_s[threadIdx.x] = scale;
		if (col < n)
			sw[col] = scale;
	}
	__syncthreads();
	if (col >= n)
		return;
	const float scale = scale_s[threadIdx.x];
	for (long long i = threadIdx.y; i < k; i += 8)
		wq[i * n + col] = quantize(wt[i * n + col], scale);
}

// int8 GEMM: a 64 x 64 output tile per 256-thread block, k in slices of 32 staged in shared memory
// as packed int32 words of 4 consecutive k (zero-padded past k), 4 x 4 outputs per thread with
// __dp4a (4 int8 products summed into an int32 accumulator per instruction).
extern "C" __global__ void __launch_bounds__(256)
gemm_i8(const signed char* __restrict__ xq, const signed char* __restrict__ wq,
        const float* __restrict__ sx, const float* __restrict__ sw, float* __restrict__ y,
        long long m, long long k, long long n)
{
	__shared__ int As[8][64]; // As[k/4][row]
	__shared__ int Bs[8][64]; // Bs[k/4][col]
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * 64, col0 = (long long)blockIdx.x * 64;

	int acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0;

	for (long long k0 = 0; k0 < k; k0 += 32) {
		for (int r = 0; r < 2; r++) {
			int idx = tid + 256 * r;
			// a: word (row, kq) packs xq[row, k0 + 4kq .. + 3]
			{
				int row = idx / 8, kq = idx % 8;
				long long gr = row0 + row;
				unsigned int word = 0;
				for (int e = 0; e < 4; e++) {
					long long gk = k0 + 4 * kq + e;
					if (gr < m && gk < k)
						word |= (unsigned int)(unsigned char)xq[gr * k + gk] << (8 * e);
				}
				As[kq][row] = (int)word;
			}
			// b: word (kq, col) packs wq[k0 + 4kq .. + 3, col]; consecutive threads along col
			{
				int kq = idx / 64, col = idx % 64;
				long long gc = col0 + col;
				unsigned int word = 0;
				for (int e = 0; e < 4; e++) {
					long long gk = k0 + 4 * kq + e;
					if (gc < n && gk < k)
						word |= (unsigned int)(unsigned char)wq[gk * n + gc] << (8 * e);
				}
				Bs[kq][col] = (int)word;
			}
		}
		__syncthreads();
#pragma unroll
		for (int kq = 0; kq < 8; kq++) {
			int av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kq][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kq][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = __dp4a(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= m)
			continue;
		const float s = sx[gr];
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc < n)
				y[gr * n + gc] = (float)acc[i][j] * s * sw[gc];
		}
	}
}
