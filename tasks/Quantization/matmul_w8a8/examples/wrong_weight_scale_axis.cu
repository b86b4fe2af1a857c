// @kbx expect wrong
// Mistake: the weight scales are taken along the wrong axis, one per ROW kk of the [k, n] weight
// (sw[kk] = max |weight[kk, :]| / 127: the activation's row quantizer reused on the weight) instead
// of one per output column; the input keeps its per-row scales and every value is still rounded
// to the nearest and clamped to [-127, 127]. A scale per kk cannot be taken out of the sum over k,
// so the int8 products are dequantized one by one (x_q * w_q * sw[kk]) and summed in f32: the
// scheme is consistent but the granularity is wrong, and the source shows no integer accumulation
// (it lacks that evidence too; the outputs fail on their own). A weight row holds n values and a
// column k, so the steps are coarser than the reference's where n > k: on primes (k = 131,
// n = 1009) a numpy model with kbx's own inputs (seed 0 and 99 more) gives rmse 0.114 to 0.118
// from the reference (threshold 0.1; 0.116 at seed 0) and as much from the exact product, from
// which the reference itself is 0.103 to 0.106 (the most [tolerance] exact allows): primes fails
// at every seed. In the other random cases n <= k and the row steps are as fine or finer:
// odd_uniform stays within rmse 0.03 of the reference, and the randn, outlier and long_k draws
// (as far from the reference as the reference is from the exact product) are no farther from the
// exact product than the reference and pass against it (random_outlier_64x128x64 fails at 2 seeds
// of 100). The input stages are the reference's, and the quantized weight is kept under the
// reference's name and shape (the scales, of another shape, are not), so the first wrong stage
// reported should be `w_q`, every scratch before it being equal. On primes the lens sees the error
// grow as the reference's column scale shrinks: the diagnosis should say `scales of another axis`.
//
// @kbx scratch x_scale f32 [m]
// @kbx scratch w_scale_k f32 [k]
// @kbx scratch x_q i8 [m, k]
// @kbx scratch w_q i8 [k, n]
// @kbx launch quant_rows<<<max(1, m), 256>>>(input, x_q, x_scale, m, k)
// @kbx launch quant_rows<<<max(1, k), 256>>>(weight, w_q, w_scale_k, k, n)
// @kbx launch gemm_i8_kscale<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(x_q, w_q, x_scale, w_scale_k, y, m, k, n)

static __device__ __forceinline__ signed char quantize(float v, float scale)
{
	if (!(scale > 0.0f))
		return 0;
	float q = rintf(v / scale);
	q = fminf(fmaxf(q, -127.0f), 127.0f);
	return (signed char)(int)q;
}

// One block per row: two-level max reduction (warp shuffles, then shared memory), then quantize.
// Launched on the input (m rows of k) as in the reference, and on the weight (k rows of n).
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

// y[i, j] = x_scale[i] * sum_kk x_q[i, kk] * w_q[kk, j] * w_scale_k[kk]. A 16 x 16 output tile
// per block, k in slices of 16 staged in shared memory with the weight scale of each kk; each
// int8 product is exact, then dequantized with its kk's scale (the mistake: the scale varies
// along the reduction) and summed in f32.
extern "C" __global__ void __launch_bounds__(256)
gemm_i8_kscale(const signed char* __restrict__ xq, const signed char* __restrict__ wq,
               const float* __restrict__ sx, const float* __restrict__ sw_k, float* __restrict__ y,
               long long m, long long k, long long n)
{
	__shared__ int As[16][17];  // As[row][kk]
	__shared__ int Bs[16][17];  // Bs[kk][col]
	__shared__ float Ss[16];    // w_scale_k of the slice
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	float sum = 0.0f;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		As[ty][tx] = (row < m && k0 + tx < k) ? (int)xq[row * k + k0 + tx] : 0;
		Bs[ty][tx] = (k0 + ty < k && col < n) ? (int)wq[(k0 + ty) * n + col] : 0;
		if (ty == 0)
			Ss[tx] = k0 + tx < k ? sw_k[k0 + tx] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			sum = fmaf((float)(As[ty][kk] * Bs[kk][tx]), Ss[kk], sum);
		__syncthreads();
	}
	if (row < m && col < n)
		y[row * n + col] = sum * sx[row];
}
