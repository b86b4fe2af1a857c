// @kbx expect pass
// Correct alternative, all f32: a 16 x 16 shared-memory tiled product with the bias added in its
// epilogue (written to `add`; no `matmul` buffer), then one block per line (a row for dim = 1, a
// column for dim = 0) computes max, sum exp(v - max) and writes v - max - log(sum).
//
// @kbx scratch add f32 [m, n]
// @kbx launch mm_bias<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16))), dim3(16, 16)>>>(input, weight, bias, add, m, k, n, has_bias)
// @kbx launch lsm_lines<<<max(1, min(dim * m + (1 - dim) * n, 65535)), 256>>>(add, y, m, n, dim)

extern "C" __global__ void mm_bias(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ bias,
                                   float* __restrict__ c, long long m, long long k, long long n, int has_bias)
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
		c[row * n + col] = has_bias ? acc + bias[col] : acc;
}

extern "C" __global__ void lsm_lines(const float* __restrict__ x, float* __restrict__ y, long long m, long long n, int dim)
{
	__shared__ float sh[256];
	const long long lines = dim ? m : n, len = dim ? n : m, step = dim ? 1 : n;
	for (long long line = blockIdx.x; line < lines; line += gridDim.x) {
		const long long base = dim ? line * n : line;
		float mx = __int_as_float(0xff800000);
		bool nan = false;
		for (long long e = threadIdx.x; e < len; e += 256) {
			float v = x[base + e * step];
			nan |= v != v;
			mx = fmaxf(mx, v);
		}
		sh[threadIdx.x] = nan ? __int_as_float(0x7fc00000) : mx;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s) {
				float a = sh[threadIdx.x], b = sh[threadIdx.x + s];
				sh[threadIdx.x] = (a != a || b != b) ? __int_as_float(0x7fc00000) : fmaxf(a, b);
			}
			__syncthreads();
		}
		mx = sh[0];
		__syncthreads();
		float sum = 0.0f;
		for (long long e = threadIdx.x; e < len; e += 256)
			sum += expf(x[base + e * step] - mx);
		sh[threadIdx.x] = sum;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s)
				sh[threadIdx.x] += sh[threadIdx.x + s];
			__syncthreads();
		}
		const float ls = logf(sh[0]);
		for (long long e = threadIdx.x; e < len; e += 256)
			y[base + e * step] = (x[base + e * step] - mx) - ls;
		__syncthreads();
	}
}
