// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_cross_entropy_softmax_layernorm reference: the PyTorch stages, each into its own buffer.
// Output `loss`, F.cross_entropy(logits, targets, weight, ignore_index, reduction, label_smoothing):
//   stage `log_softmax` (inside cross_entropy): lp = x - max - log(sum exp(x - max))
//   stage nll / label smoothing, per sample i with t = targets[i] != ignore_index (0 when ignored):
//       `nll_loss`[i] = -weight[t] * lp[i, t], `nll_weight`[i] = weight[t],
//       `smooth_loss`[i] = -sum_c weight[c] * lp[i, c]
//   stage reduction: 'none': (1 - s) * nll + smooth * (s / C) per sample (just nll when s = 0);
//       'sum': the same over the sums; 'mean': both sums divided by sum(nll_weight).
// Output `output`, F.layer_norm(F.softmax(logits, dim=-1), (C,), eps) without weight and bias:
//   stage `softmax`:    p = exp(x - max) / sum exp(x - max)
//   stage layer_norm:   per row, `layer_norm_mean` = mean(p), `layer_norm_rstd` =
//                       1 / sqrt(biased var(p) + eps) (one launch), output = (p - mean) * rstd (the next)
// Keeping the [n, C] log-probabilities and probabilities in memory costs two extra passes: the price
// of a reference whose stages can be diffed.
//
// Row kernels use one warp per row (grid-stride): max, then the sum of exp in f64 (expf per term),
// then the write; the layer-norm statistics are two-pass f64 sums (mean, then centred squares),
// rounded to f32; the probabilities of a row sit close to their mean 1 / C, so the centred form
// matters. PyTorch does all of this in f32 (a few ulp from these values). The loss reductions sum
// the per-sample terms over 16384-row chunks in f64 and combine the chunks in one block.
//
// @kbx scratch log_softmax f32 [n, c]
// @kbx scratch nll_loss f32 [n]
// @kbx scratch nll_weight f32 [n]
// @kbx scratch smooth_loss f32 [n]
// @kbx scratch ce_part f64 [3 * max(1, min(cdiv(n, 16384), 1024))]
// @kbx scratch softmax f32 [n, c]
// @kbx scratch layer_norm_mean f32 [n]
// @kbx scratch layer_norm_rstd f32 [n]
// @kbx launch log_softmax_rows<<<max(1, min(cdiv(n, 8), 65536)), 256>>>(logits, log_softmax, n, c)
// @kbx launch ce_rows<<<max(1, min(cdiv(n, 8), 65536)), 256>>>(log_softmax, targets, weight, nll_loss, nll_weight, smooth_loss, n, c, ignore_index, label_smoothing)
// @kbx launch ce_partial<<<max(1, min(cdiv(n, 16384), 1024)), 256>>>(nll_loss, nll_weight, smooth_loss, ce_part, n)
// @kbx launch ce_final<<<max(1, min(cdiv(m, 256), 4096)), 256>>>(nll_loss, smooth_loss, ce_part, loss, n, c, i64(max(1, min(cdiv(n, 16384), 1024))), reduction, label_smoothing)
// @kbx launch softmax_rows<<<max(1, min(cdiv(n, 8), 65536)), 256>>>(logits, softmax, n, c)
// @kbx launch ln_stats<<<max(1, min(cdiv(n, 8), 65536)), 256>>>(softmax, layer_norm_mean, layer_norm_rstd, n, c, eps)
// @kbx launch ln_apply<<<dim3(max(1, min(cdiv(c, 256), 64)), max(1, min(n, 65535))), 256>>>(softmax, layer_norm_mean, layer_norm_rstd, output, n, c)

#define NEG_INF __int_as_float(0xff800000)

extern "C" __global__ void __launch_bounds__(256)
log_softmax_rows(const float* __restrict__ x, float* __restrict__ out, long long n, long long c)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < n; r += warps) {
		const float* xr = x + r * c;
		float m = NEG_INF;
		for (long long j = lane; j < c; j += 32)
			m = fmaxf(m, xr[j]); // NaN is dropped here but comes back through exp(NaN - m)
		for (int o = 16; o > 0; o >>= 1)
			m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
		double s = 0.0;
		for (long long j = lane; j < c; j += 32)
			s += (double)expf(xr[j] - m);
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		const float ls = (float)log(s);
		for (long long j = lane; j < c; j += 32)
			out[r * c + j] = (xr[j] - m) - ls;
	}
}

extern "C" __global__ void __launch_bounds__(256)
ce_rows(const float* __restrict__ lp, const long long* __restrict__ target, const float* __restrict__ weight,
        float* __restrict__ nll, float* __restrict__ nllw, float* __restrict__ smooth, long long n, long long c,
        long long ignore_index, float label_smoothing)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < n; r += warps) {
		const long long t = target[r];
		const bool keep = t != ignore_index;
		double s = 0.0;
		if (label_smoothing > 0.0f && keep) {
			for (long long j = lane; j < c; j += 32)
				s += (double)__fmul_rn(lp[r * c + j], weight[j]);
			for (int o = 16; o > 0; o >>= 1)
				s += __shfl_xor_sync(0xffffffffu, s, o);
		}
		if (lane == 0) {
			nll[r] = keep ? -__fmul_rn(weight[t], lp[r * c + t]) : 0.0f;
			nllw[r] = keep ? weight[t] : 0.0f;
			smooth[r] = (float)(-s);
		}
	}
}

// Sum of (a, b, d) over the block (blockDim.x == 256); valid in thread 0.
static __device__ void block_sum3(double& a, double& b, double& d)
{
	__shared__ double sh[3][8];
	for (int o = 16; o > 0; o >>= 1) {
		a += __shfl_down_sync(0xffffffffu, a, o);
		b += __shfl_down_sync(0xffffffffu, b, o);
		d += __shfl_down_sync(0xffffffffu, d, o);
	}
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		sh[0][warp] = a;
		sh[1][warp] = b;
		sh[2][warp] = d;
	}
	__syncthreads();
	a = threadIdx.x < 8 ? sh[0][threadIdx.x] : 0.0;
	b = threadIdx.x < 8 ? sh[1][threadIdx.x] : 0.0;
	d = threadIdx.x < 8 ? sh[2][threadIdx.x] : 0.0;
	if (warp == 0)
		for (int o = 16; o > 0; o >>= 1) {
			a += __shfl_down_sync(0xffffffffu, a, o);
			b += __shfl_down_sync(0xffffffffu, b, o);
			d += __shfl_down_sync(0xffffffffu, d, o);
		}
}

extern "C" __global__ void __launch_bounds__(256)
ce_partial(const float* __restrict__ nll, const float* __restrict__ nllw, const float* __restrict__ smooth,
           double* __restrict__ part, long long n)
{
	const long long chunks = gridDim.x, chunk = (n + chunks - 1) / chunks;
	const long long k0 = (long long)blockIdx.x * chunk, k1 = min(n, k0 + chunk);
	double a = 0.0, b = 0.0, d = 0.0;
	for (long long k = k0 + threadIdx.x; k < k1; k += 256) {
		a += (double)nll[k];
		b += (double)nllw[k];
		d += (double)smooth[k];
	}
	block_sum3(a, b, d);
	if (threadIdx.x == 0) {
		part[3 * blockIdx.x] = a;
		part[3 * blockIdx.x + 1] = b;
		part[3 * blockIdx.x + 2] = d;
	}
}

// reduction: 0 = 'none' (y [n]), 1 = 'mean', 2 = 'sum' (y [1]).
extern "C" __global__ void __launch_bounds__(256)
ce_final(const float* __restrict__ nll, const float* __restrict__ smooth, const double* __restrict__ part,
         float* __restrict__ y, long long n, long long c, long long chunks, int reduction, float label_smoothing)
{
	const double s = (double)label_smoothing;
	if (reduction == 0) {
		for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += (long long)gridDim.x * blockDim.x)
			y[r] = s > 0.0 ? (float)((1.0 - s) * nll[r] + smooth[r] * (s / (double)c)) : nll[r];
		return;
	}
	if (blockIdx.x != 0)
		return;
	double a = 0.0, b = 0.0, d = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += 256) {
		a += part[3 * p];
		b += part[3 * p + 1];
		d += part[3 * p + 2];
	}
	block_sum3(a, b, d);
	if (threadIdx.x == 0) {
		if (reduction == 1) { // weighted mean; all samples ignored: 0 / 0 = NaN
			a /= b;
			d /= b;
		}
		y[0] = s > 0.0 ? (float)((1.0 - s) * a + d * (s / (double)c)) : (float)a;
	}
}

extern "C" __global__ void __launch_bounds__(256)
softmax_rows(const float* __restrict__ x, float* __restrict__ out, long long n, long long c)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < n; r += warps) {
		const float* xr = x + r * c;
		float m = NEG_INF;
		for (long long j = lane; j < c; j += 32)
			m = fmaxf(m, xr[j]);
		for (int o = 16; o > 0; o >>= 1)
			m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
		double s = 0.0;
		for (long long j = lane; j < c; j += 32)
			s += (double)expf(xr[j] - m);
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		const float sf = (float)s;
		for (long long j = lane; j < c; j += 32)
			out[r * c + j] = expf(xr[j] - m) / sf;
	}
}

// Layer-norm statistics of each row: two passes in f64 (mean, then the biased variance).
extern "C" __global__ void __launch_bounds__(256)
ln_stats(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ rstd, long long n, long long c,
         float eps)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < n; r += warps) {
		const float* xr = x + r * c;
		double s = 0.0;
		for (long long j = lane; j < c; j += 32)
			s += (double)xr[j];
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		const double mu = s / (double)c;
		double q = 0.0;
		for (long long j = lane; j < c; j += 32) {
			double d = (double)xr[j] - mu;
			q += d * d;
		}
		for (int o = 16; o > 0; o >>= 1)
			q += __shfl_xor_sync(0xffffffffu, q, o);
		if (lane == 0) {
			mean[r] = (float)mu;
			rstd[r] = (float)(1.0 / sqrt(q / (double)c + (double)eps));
		}
	}
}

// output = (p - mean) * rstd: blockIdx.y walks rows, x threads walk a row.
extern "C" __global__ void __launch_bounds__(256)
ln_apply(const float* __restrict__ x, const float* __restrict__ mean, const float* __restrict__ rstd,
         float* __restrict__ out, long long n, long long c)
{
	for (long long r = blockIdx.y; r < n; r += gridDim.y) {
		const float mu = mean[r], rs = rstd[r];
		for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < c; j += (long long)gridDim.x * blockDim.x)
			out[r * c + j] = __fmul_rn(__fsub_rn(x[r * c + j], mu), rs);
	}
}
