// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_avg_pool2d_cosine_similarity reference: the two PyTorch stages, each into its own buffer.
//   stage `cosine_similarity` (F.cosine_similarity(x1, x2, dim=1, eps)), for every (sample, pixel):
//       n1 = clamp_min(||x1[:, pixel]||_2, eps), n2 likewise (clamp_min keeps NaN),
//       cos = sum over channels of (x1 / n1) * (x2 / n2), each quotient and product rounded to f32
//       (PyTorch's normalise-then-sum form, which keeps |cos| <= 1 up to rounding).
//   stage avg_pool2d (F.avg_pool2d on the [N, 1, H, W] result, ceil_mode False, count_include_pad
//       True): window [oh * stride - pad, + kernel) x [ow * stride - pad, + kernel), its size counted
//       up to H + pad / W + pad (padding included), clipped to the image, f32 sum in row order
//       divided by that size, as PyTorch's CUDA kernel does.
// Keeping the [N, H, W] similarity map in memory costs one extra write and read of it (1 / C of
// the input traffic): the price of a reference whose stages can be diffed.
//
// cos_sim: one thread per (sample, pixel), grid-stride; the channel walk is strided by H * W, so a
// warp reads 32 consecutive pixels of one channel (coalesced). The squared norms are summed in f64
// and the square root is taken in f64 (correctly rounded norms; PyTorch sums in f32, ~1e-7 from
// them), the product sum in f64 over f32-rounded terms. Expected difference to PyTorch ~1e-7.
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
		float n1 = (float)sqrt(s1), n2 = (float)sqrt(s2);
		n1 = n1 < eps ? eps : n1; // clamp_min: a NaN norm stays NaN
		n2 = n2 < eps ? eps : n2;
		double acc = 0.0;
		for (long long k = 0; k < c; k++)
			acc += (double)__fmul_rn(__fdiv_rn(a[k * hw], n1), __fdiv_rn(b[k * hw], n2));
		cs[i] = (float)acc;
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
