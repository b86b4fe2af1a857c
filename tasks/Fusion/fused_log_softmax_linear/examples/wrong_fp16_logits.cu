// @kbx expect wrong
// Mistake: an intermediate kept in fp16: the biased logits are stored as __half (to halve the
// traffic into log_softmax). Their rounding, ~5e-4 relative, is ~5e-3 absolute on logits of size 10
// and passes straight into the outputs, far above 1e-5. The `matmul` stage is kept in f32 under the
// reference's name and matches; the f16 logits live under another name (`add_h`), so the output is
// the first to differ.
//
// @kbx scratch matmul f32 [m, n]
// @kbx scratch add_h f16 [m, n]
// @kbx launch mm<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, weight, matmul, m, k, n)
// @kbx launch bias_to_half<<<max(1, min(cdiv(m * n, 256), 65536)), 256>>>(matmul, bias, add_h, i64(m * n), n, has_bias)
// @kbx launch lsm_half<<<max(1, min(dim * m + (1 - dim) * n, 65535)), 256>>>(add_h, y, m, n, dim)

#include <cuda_fp16.h>

extern "C" __global__ void mm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long m,
                              long long k, long long n)
{
	__shared__ float as[16][17], bs[16][17];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	const long long brow = (long long)blockIdx.x * 16 + ty;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
		bs[ty][tx] = (brow < n && k0 + tx < k) ? b[brow * k + k0 + tx] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(as[ty][kk], bs[tx][kk], acc);
		__syncthreads();
	}
	if (row < m && col < n)
		c[row * n + col] = acc;
}

extern "C" __global__ void bias_to_half(const float* __restrict__ x, const float* __restrict__ bias, __half* __restrict__ h,
                                        long long total, long long n, int has_bias)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x)
		h[e] = __float2half(x[e] + (has_bias ? bias[e % n] : 0.0f));
}

// one block per line: dim = 1 lines are rows (stride 1), dim = 0 lines are columns (stride n)
extern "C" __global__ void lsm_half(const __half* __restrict__ h, float* __restrict__ y, long long m, long long n, int dim)
{
	__shared__ float sh[256];
	const long long lines = dim ? m : n, len = dim ? n : m, step = dim ? 1 : n;
	for (long long line = blockIdx.x; line < lines; line += gridDim.x) {
		const long long base = dim ? line * n : line;
		float mx = __int_as_float(0xff800000);
		for (long long e = threadIdx.x; e < len; e += 256)
			mx = fmaxf(mx, __half2float(h[base + e * step]));
		sh[threadIdx.x] = mx;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
			__syncthreads();
		}
		mx = sh[0];
		__syncthreads();
		float sum = 0.0f;
		for (long long e = threadIdx.x; e < len; e += 256)
			sum += expf(__half2float(h[base + e * step]) - mx);
		sh[threadIdx.x] = sum;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] += sh[threadIdx.x + s];
			__syncthreads();
		}
		const float ls = logf(sh[0]);
		for (long long e = threadIdx.x; e < len; e += 256)
			y[base + e * step] = __half2float(h[base + e * step]) - mx - ls;
		__syncthreads();
	}
}
