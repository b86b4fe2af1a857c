/*
 * kbx/gemm_exact.h - the exact f32 product a quantization reference keeps for [tolerance] exact
 * (doc/task-format.md): C[z] = A[z] B[z] for row-major A [m, k] and B [k, n], batched over
 * blockIdx.z, 16 x 16 tiles, f32 accumulation with fmaf. Launch it `untimed`, on
 * dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), batches) blocks of dim3(16, 16) threads: it
 * runs in checked calls only and never counts in the reference's timing.
 */
#ifndef KBX_GEMM_EXACT_H
#define KBX_GEMM_EXACT_H

extern "C" __global__ void __launch_bounds__(256)
gemm_f32_exact(const float* __restrict__ a, const float* __restrict__ bm, float* __restrict__ c, long long m,
	       long long k, long long n)
{
	__shared__ float as[16][17], bs[16][17];
	const long long z = blockIdx.z;
	const long long row = (long long)blockIdx.y * 16 + threadIdx.y, col = (long long)blockIdx.x * 16 + threadIdx.x;
	float acc = 0.0f;

	a += z * m * k;
	bm += z * k * n;
	c += z * m * n;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		as[threadIdx.y][threadIdx.x] = row < m && k0 + threadIdx.x < k ? a[row * k + k0 + threadIdx.x] : 0.0f;
		bs[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < k && col < n ? bm[(k0 + threadIdx.y) * n + col] : 0.0f;
		__syncthreads();
		for (int t = 0; t < 16; t++)
			acc = fmaf(as[threadIdx.y][t], bs[t][threadIdx.x], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		c[row * n + col] = acc;
}

#endif
