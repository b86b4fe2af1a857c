// @kbx expect pass
// Correct alternative: a single 1024-thread block, each thread strides over columns j, forms
// C'[0, j] and C'[1, j] with full-length f32 dot products over m, and accumulates C'[0, j] *
// C'[1, j] in an f32 partial; the partials meet in an f32 shared-memory tree. All-f32 like
// PyTorch's own dot, a different order from the reference's f64 sum: atol absorbs it.
//
// @kbx launch row_dot_one_block<<<1, 1024>>>(A, B, C, y, m, p, alpha, beta)

extern "C" __global__ void __launch_bounds__(1024)
row_dot_one_block(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ C,
                  float* __restrict__ y, long long m, long long p, float alpha, float beta)
{
	__shared__ float red[1024];
	float part = 0.0f;
	for (long long j = threadIdx.x; j < p; j += 1024) {
		float mm0 = 0.0f, mm1 = 0.0f;
		for (long long k = 0; k < m; k++) {
			float bv = B[k * p + j];
			mm0 = fmaf(A[k], bv, mm0);
			mm1 = fmaf(A[m + k], bv, mm1);
		}
		float c0 = alpha * mm0 + beta * C[j];
		float c1 = alpha * mm1 + beta * C[p + j];
		part = fmaf(c0, c1, part);
	}
	red[threadIdx.x] = part;
	__syncthreads();
	for (int s = 512; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[0] = red[0];
}
