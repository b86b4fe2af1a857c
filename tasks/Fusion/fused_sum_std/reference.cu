// fused_sum_std reference: the two stages of the KernelBenchX function, each into its own buffer.
//   stage `sum` (input.sum(dim)): sum[j, l] = sum_k input[j, k, l], f64, rounded once to f32
//   stage `std` (mean, squared deviations, sum, divide, sqrt): y = sqrt(sum (s - mean)^2 / (m -
//               correction)) over the m = b * d sums, or 0 when m <= correction
// With dim = None there is one sum and y = 0 whatever the data; the reference still forms the sum
// (the stage a candidate may be diffed against).
//
// sum: sum_partial gives block (o, p) output o and the p-th of P = max(1, min(cdiv(c, 8192), 1024))
// chunks of its c values (f64, warp shuffles + shared memory), sum_final adds a row's P partials and
// rounds to f32. std: one 1024-thread block, two f64 passes over the m sums (mean, then squared
// deviations), sqrt in f64, rounded once.
//
// @kbx scratch sum_part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx scratch sum f32 [b * d]
// @kbx launch sum_partial<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(input, sum_part, b, c, d)
// @kbx launch sum_final<<<max(1, b * d), 256>>>(sum_part, sum, i64(b * d), i64(max(1, min(cdiv(c, 8192), 1024))))
// @kbx launch std_k<<<1, 1024>>>(sum, y, i64(b * d), correction)

// Sum over the block (blockDim.x a multiple of 32, <= 1024); every thread gets the result.
static __device__ double block_sum(double v)
{
	__shared__ double sh[32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int w = 0; w < (int)(blockDim.x >> 5); w++)
		r += sh[w];
	__syncthreads(); // sh is reused by the next call
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
sum_partial(const float* __restrict__ x, double* __restrict__ part, long long b, long long c, long long d)
{
	const long long o = blockIdx.x, chunks = gridDim.y, p = blockIdx.y;
	if (o >= b * d)
		return;
	const long long j = o / d, l = o % d;
	const long long chunk = (c + chunks - 1) / chunks;
	const long long k0 = min(c, p * chunk), k1 = min(c, k0 + chunk);
	const float* base = x + j * c * d + l;
	double acc = 0.0;
	for (long long k = k0 + threadIdx.x; k < k1; k += 256)
		acc += (double)base[k * d];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[o * chunks + p] = acc;
}

extern "C" __global__ void __launch_bounds__(256)
sum_final(const double* __restrict__ part, float* __restrict__ sum, long long m, long long chunks)
{
	const long long o = blockIdx.x;
	if (o >= m)
		return;
	double acc = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += 256)
		acc += part[o * chunks + p];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		sum[o] = (float)acc;
}

extern "C" __global__ void __launch_bounds__(1024)
std_k(const float* __restrict__ sum, float* __restrict__ y, long long m, long long correction)
{
	if (m <= correction) { // the function returns tensor(0.0)
		if (threadIdx.x == 0)
			y[0] = 0.0f;
		return;
	}
	double s = 0.0;
	for (long long i = threadIdx.x; i < m; i += blockDim.x)
		s += (double)sum[i];
	const double mean = block_sum(s) / (double)m;
	double q = 0.0;
	for (long long i = threadIdx.x; i < m; i += blockDim.x) {
		const double dv = (double)sum[i] - mean;
		q += dv * dv;
	}
	q = block_sum(q);
	if (threadIdx.x == 0)
		y[0] = (float)sqrt(q / (double)(m - correction));
}
