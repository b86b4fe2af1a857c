// @kbx expect wrong
// Mistake: eps applied to the product of the norms, x1 . x2 / max(||x1|| * ||x2||, eps), instead of
// to each norm as PyTorch's cosine_similarity does. Identical on ordinary data; on tiny_norms (the
// norms of x1 are ~1e-9 < eps) the similarities are off by tens of percent. Same stages and scratch
// names as the reference: the first wrong stage reported should be `cosine_similarity`.
//
// @kbx scratch cosine_similarity f32 [n, h, w]
// @kbx launch cos_sim<<<max(1, min(cdiv(n * h * w, 256), 65536)), 256>>>(x1, x2, cosine_similarity, n, c, i64(h * w), eps)
// @kbx launch avg_pool2d<<<max(1, min(cdiv(n * ho * wo, 256), 65536)), 256>>>(cosine_similarity, y, n, h, w, ho, wo, kernel_size, stride, padding)

extern "C" __global__ void __launch_bounds__(256)
cos_sim(const float* __restrict__ x1, const float* __restrict__ x2, float* __restrict__ cs, long long n, long long c,
        long long hw, float eps)
{
	const long long total = n * hw;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long s = i / hw, p = i % hw;
		const float* a = x1 + s * c * hw + p;
		const float* b = x2 + s * c * hw + p;
		double s1 = 0.0, s2 = 0.0;
		for (long long k = 0; k < c; k++) {
			double va = (double)a[k * hw], vb = (double)b[k * hw];
			s1 += va * va;
			s2 += vb * vb;
		}
		// BUG: eps clamps the product of the norms (the pre-1.12 formula, and the textbook one),
		// not each norm: x1 . x2 / max(n1 * n2, eps). Same result unless a norm is below eps.
		double dot = 0.0;
		for (long long k = 0; k < c; k++)
			dot += (double)a[k * hw] * (double)b[k * hw];
		double den = sqrt(s1) * sqrt(s2);
		cs[i] = (float)(dot / (den < (double)eps ? (double)eps : den));
	}
}

extern "C" __global__ void __launch_bounds__(256)
avg_pool2d(const float* __restrict__ x, float* __restrict__ y, long long n, long long h, long long w, long long ho,
           long long wo, long long k, long long stride, long long pad)
{
	const long long total = n * ho * wo;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
		const long long ow = i % wo, oh = (i / wo) % ho, s = i / (wo * ho);
		long long h0 = oh * stride - pad, w0 = ow * stride - pad;
		long long h1 = min(h0 + k, h + pad), w1 = min(w0 + k, w + pad);
		const long long pool = (h1 - h0) * (w1 - w0);
		h0 = max(h0, 0LL);
		w0 = max(w0, 0LL);
		h1 = min(h1, h);
		w1 = min(w1, w);
		const float* xs = x + s * h * w;
		float sum = 0.0f;
		for (long long r = h0; r < h1; r++)
			for (long long q = w0; q < w1; q++)
				sum += xs[r * w + q];
		y[i] = sum / (float)pool;
	}
}
