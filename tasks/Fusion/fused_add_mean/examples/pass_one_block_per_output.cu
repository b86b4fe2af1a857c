// @kbx expect pass
// Correct alternative: add and mean fused in one kernel, one 1024-thread block per output, no
// intermediate buffer; each thread sums its strided share of input + alpha * other in f32 and a
// warp-shuffle tree combines the 1024 partial sums (f32 error ~1e-7 relative at these sizes). Slower
// than a multi-block split for one long vector, but there is no cross-block dependency to get wrong.
//
// @kbx launch add_mean_rows<<<max(1, b * d), 1024>>>(input, other, y, b, c, d, ob, oc, od, alpha)

extern "C" __global__ void __launch_bounds__(1024)
add_mean_rows(const float* __restrict__ input, const float* __restrict__ other, float* __restrict__ y, long long b,
              long long c, long long d, long long ob, long long oc, long long od, float alpha)
{
	__shared__ float warp_sums[32];
	const long long o = blockIdx.x;
	if (o >= b * d)
		return;
	const long long j = o / d, l = o % d;
	const float* x = input + j * c * d + l;
	const long long sj = ob == 1 ? 0 : j, sl = od == 1 ? 0 : l, sk = oc == 1 ? 0 : od;
	const float* ot = other + (sj * oc) * od + sl;
	float acc = 0.0f;
	for (long long k = threadIdx.x; k < c; k += blockDim.x)
		acc += x[k * d] + alpha * ot[k * sk];
	for (int off = 16; off > 0; off >>= 1)
		acc += __shfl_xor_sync(0xffffffffu, acc, off);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x >> 5] = acc;
	__syncthreads();
	if (threadIdx.x < 32) {
		acc = warp_sums[threadIdx.x];
		for (int off = 16; off > 0; off >>= 1)
			acc += __shfl_xor_sync(0xffffffffu, acc, off);
		if (threadIdx.x == 0)
			y[o] = acc / (float)c;
	}
}
