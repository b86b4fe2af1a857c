// @kbx expect pass
// Correct alternative: the four elementwise / reduction stages fused into one kernel, one block per
// log_softmax line (a row along n for dim = 2, a column along m for dim = 1): it forms
// input1 * input2 + other on the fly (twice: max, then the sum of exponentials, in f32) and writes
// the dropped-out log-probabilities to `dropout`; then an f32 bmm with 16 x 16 shared-memory tiles.
//
// @kbx scratch dropout f32 [b, m, n]
// @kbx launch lines_fused<<<max(1, min((dim - 1) * b * m + (2 - dim) * b * n, 65535)), 256>>>(input1, input2, other, dropout, b, m, n, ob, om, p, training, dim, seed)
// @kbx launch bmm16<<<dim3(max(1, cdiv(q, 16)), max(1, cdiv(m, 16)), max(1, b)), dim3(16, 16)>>>(dropout, mat2, y, b, m, n, q)

#include <kbx/rng.h>

__device__ float block_reduce(float v, float* sh, bool is_max)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			float a = sh[threadIdx.x], c = sh[threadIdx.x + s];
			sh[threadIdx.x] = is_max ? ((a != a || a > c) ? a : c) : a + c;
		}
		__syncthreads();
	}
	float r = sh[0];
	__syncthreads();
	return r;
}

extern "C" __global__ void lines_fused(const float* __restrict__ x1, const float* __restrict__ x2,
                                       const float* __restrict__ other, float* __restrict__ d, long long b, long long m,
                                       long long n, long long ob, long long om, float p, int training, int dim,
                                       long long seed)
{
	__shared__ float sh[256];
	const long long lines = dim == 2 ? b * m : b * n, len = dim == 2 ? n : m, step = dim == 2 ? 1 : n;
	const long long sb = ob == 1 ? 0 : om * n, sm = om == 1 ? 0 : n;
	const bool active = training && p > 0.0f;
	const float scale = p < 1.0f ? (float)(1.0 / (double)(float)(1.0 - (double)p)) : 0.0f;
	for (long long line = blockIdx.x; line < lines; line += gridDim.x) {
		// first element of the line and the (z, i, j) of element t: e = base + t * step
		const long long z = dim == 2 ? line / m : line / n;
		const long long base = dim == 2 ? line * n : z * m * n + line % n;
		float mx = __int_as_float(0xff800000);
		for (long long t = threadIdx.x; t < len; t += 256) {
			long long e = base + t * step, j = e % n, i = (e / n) % m;
			float s = x1[e] * x2[e] + other[z * sb + i * sm + j];
			mx = (s != s || s > mx) ? s : mx;
		}
		mx = block_reduce(mx, sh, true);
		float sum = 0.0f;
		for (long long t = threadIdx.x; t < len; t += 256) {
			long long e = base + t * step, j = e % n, i = (e / n) % m;
			sum += expf(x1[e] * x2[e] + other[z * sb + i * sm + j] - mx);
		}
		const float ls = logf(block_reduce(sum, sh, false));
		for (long long t = threadIdx.x; t < len; t += 256) {
			long long e = base + t * step, j = e % n, i = (e / n) % m;
			float v = (x1[e] * x2[e] + other[z * sb + i * sm + j] - mx) - ls;
			if (active)
				v = v * (kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= p ? 1.0f : 0.0f) * scale;
			d[e] = v;
		}
	}
}

extern "C" __global__ void bmm16(const float* __restrict__ a, const float* __restrict__ c, float* __restrict__ y,
                                 long long b, long long m, long long n, long long q)
{
	__shared__ float as[16][17], cs[16][17];
	const long long z = blockIdx.z;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
	if (z >= b)
		return;
	float acc = 0.0f;
	for (long long k0 = 0; k0 < n; k0 += 16) {
		as[ty][tx] = (row < m && k0 + tx < n) ? a[(z * m + row) * n + k0 + tx] : 0.0f;
		cs[ty][tx] = (k0 + ty < n && col < q) ? c[(z * n + k0 + ty) * q + col] : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < 16; kk++)
			acc = fmaf(as[ty][kk], cs[kk][tx], acc);
		__syncthreads();
	}
	if (row < m && col < q)
		y[(z * m + row) * q + col] = acc;
}
