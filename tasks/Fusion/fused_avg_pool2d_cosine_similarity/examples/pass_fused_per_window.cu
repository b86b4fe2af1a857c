// @kbx expect pass
// Correct alternative: one kernel, one thread per output window; the similarity of each pixel in
// the window is computed on the fly in f32 (a pixel shared by overlapping windows is recomputed).
// No intermediate map in memory; rounding differs from PyTorch's by ~1e-7.
//
// @kbx launch pool_cos<<<max(1, cdiv(n * ho * wo, 128)), 128>>>(x1, x2, y, n, c, h, w, ho, wo, kernel_size, stride, padding, eps)

static __device__ float cos_at(const float* a, const float* b, long long c, long long hw, float eps)
{
	float s1 = 0.0f, s2 = 0.0f;
	for (long long k = 0; k < c; k++) {
		s1 += a[k * hw] * a[k * hw];
		s2 += b[k * hw] * b[k * hw];
	}
	float n1 = sqrtf(s1), n2 = sqrtf(s2);
	n1 = n1 < eps ? eps : n1;
	n2 = n2 < eps ? eps : n2;
	float acc = 0.0f;
	for (long long k = 0; k < c; k++)
		acc += (a[k * hw] / n1) * (b[k * hw] / n2);
	return acc;
}

extern "C" __global__ void pool_cos(const float* __restrict__ x1, const float* __restrict__ x2, float* __restrict__ y,
                                    long long n, long long c, long long h, long long w, long long ho, long long wo,
                                    long long k, long long stride, long long pad, float eps)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * ho * wo)
		return;
	long long ow = i % wo, oh = (i / wo) % ho, s = i / (wo * ho);
	long long h0 = oh * stride - pad, w0 = ow * stride - pad;
	long long h1 = min(h0 + k, h + pad), w1 = min(w0 + k, w + pad);
	float pool = (float)((h1 - h0) * (w1 - w0));
	float sum = 0.0f;
	for (long long r = max(h0, 0LL); r < min(h1, h); r++)
		for (long long q = max(w0, 0LL); q < min(w1, w); q++) {
			long long off = s * c * h * w + r * w + q;
			sum += cos_at(x1 + off, x2 + off, c, h * w, eps);
		}
	y[i] = sum / pool;
}
