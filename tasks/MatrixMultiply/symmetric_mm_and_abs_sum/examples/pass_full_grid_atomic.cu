// @kbx expect pass
// Correct alternative: no symmetry trick, every C' entry from a 16 x 16 shared-memory tiling of
// A @ A^T (one output per thread), |C'| reduced per block in an f32 tree and added to y with one
// f32 atomicAdd per block (y zeroed by a first kernel). The order of the block sums varies from
// run to run; with no cancellation that moves y by ~1e-7 relative.
//
// @kbx launch zero_y<<<1, 32>>>(y)
// @kbx launch abs_sum_tile16<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(A, C, y, n, m, alpha, beta)

extern "C" __global__ void zero_y(float* __restrict__ y)
{
	if (threadIdx.x == 0)
		y[0] = 0.0f;
}

extern "C" __global__ void abs_sum_tile16(const float* __restrict__ A, const float* __restrict__ C,
                                          float* __restrict__ y, long long n, long long m, float alpha, float beta)
{
	__shared__ float Ai[16][17], Aj[16][17];
	__shared__ float red[256];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long i0 = (long long)blockIdx.y * 16, j0 = (long long)blockIdx.x * 16;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < m; k0 += 16) {
		Ai[ty][tx] = (i0 + ty < n && k0 + tx < m) ? A[(i0 + ty) * m + k0 + tx] : 0.0f;
		Aj[ty][tx] = (j0 + ty < n && k0 + tx < m) ? A[(j0 + ty) * m + k0 + tx] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(Ai[ty][kk], Aj[tx][kk], acc);
		__syncthreads();
	}
	const long long i = i0 + ty, j = j0 + tx;
	float v = 0.0f;
	if (i < n && j < n)
		v = fabsf(alpha * acc + beta * C[i * n + j]);
	const int t = ty * 16 + tx;
	red[t] = v;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (t < s)
			red[t] += red[t + s];
		__syncthreads();
	}
	if (t == 0)
		atomicAdd(y, red[0]);
}
