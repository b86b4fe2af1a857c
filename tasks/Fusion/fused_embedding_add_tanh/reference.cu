// fused_embedding_add_tanh reference: the PyTorch stages, each into its own buffer.
//   stage `embedding_renorm` (only with max_norm >= 0, F.embedding's in-place renormalisation):
//       every weight row that some index selects, with p-norm (p = norm_type) above max_norm, is
//       multiplied by max_norm / (norm + 1e-7) in place (weight is inout); `renorm_rows` flags the
//       selected rows first, so a row selected several times is scaled once.
//   stage `embedding` (F.embedding): embedding[pos, :] = weight[indices[pos], :] (padding_idx only
//       affects gradients, not the forward result)
//   stage `add`       (embeddings + other, other broadcast):  add = embedding + other
//   stage tanh        (torch.tanh):                           y = tanhf(add)
// Keeping `embedding` and `add` in memory costs two extra passes over the output: the price of a
// reference whose stages can be diffed.
//
// renorm_rows: one warp per vocabulary row (grid-stride); the norm is summed in f64 (|x|, x^2 or
// x^p by norm_type, as PyTorch's kernel) and its root taken in f64, then rounded to f32 (PyTorch
// sums in f32, within a few ulp); factor = max_norm / (norm + 1e-7), evaluated in double as in
// PyTorch's kernel and rounded to f32, multiplies each element. A NaN norm compares false (not
// scaled); an infinite norm gives factor 0 (inf * 0 = NaN). The elementwise stages are
// grid-stride loops; tanhf is within 2 ulp.
//
// @kbx scratch renorm_flag i32 [v]
// @kbx scratch embedding f32 [b, l, d]
// @kbx scratch add f32 [b, l, d]
// @kbx launch clear_flags<<<max(1, min(cdiv(v, 256), 4096)), 256>>>(renorm_flag, v)
// @kbx launch flag_rows<<<max(1, min(cdiv(b * l, 256), 4096)), 256>>>(indices, renorm_flag, i64(b * l))
// @kbx launch renorm_rows<<<max(1, min(cdiv(v, 8), 65536)), 256>>>(weight, renorm_flag, v, d, max_norm, norm_type)
// @kbx launch gather_rows<<<max(1, min(cdiv(b * l * d, 1024), 65536)), 256>>>(indices, weight, embedding, i64(b * l), d)
// @kbx launch add_bcast<<<max(1, min(cdiv(b * l * d, 1024), 65536)), 256>>>(embedding, other, add, b, l, d, ob, ol, od)
// @kbx launch tanh_fwd<<<max(1, min(cdiv(b * l * d, 1024), 65536)), 256>>>(add, y, i64(b * l * d))

extern "C" __global__ void __launch_bounds__(256)
clear_flags(int* __restrict__ flag, long long v)
{
	for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < v; r += (long long)gridDim.x * blockDim.x)
		flag[r] = 0;
}

// Every thread that sees index r stores the same 1: concurrent stores of one value are safe.
extern "C" __global__ void __launch_bounds__(256)
flag_rows(const long long* __restrict__ indices, int* __restrict__ flag, long long npos)
{
	for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < npos; p += (long long)gridDim.x * blockDim.x)
		flag[indices[p]] = 1;
}

// max_norm < 0 stands for max_norm = None: nothing to do.
extern "C" __global__ void __launch_bounds__(256)
renorm_rows(float* __restrict__ weight, const int* __restrict__ flag, long long v, long long d, float max_norm,
            float norm_type)
{
	if (max_norm < 0.0f)
		return;
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < v; r += warps) {
		if (!flag[r])
			continue;
		float* row = weight + r * d;
		double s = 0.0;
		for (long long j = lane; j < d; j += 32) {
			const double x = (double)row[j];
			// as PyTorch's renorm kernel: |x| for p = 1, x^2 for p = 2, x^p (no |.|) otherwise
			s += norm_type == 1.0f ? fabs(x) : norm_type == 2.0f ? x * x : pow(x, (double)norm_type);
		}
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		const float norm = (float)(norm_type == 1.0f ? s : norm_type == 2.0f ? sqrt(s) : pow(s, 1.0 / (double)norm_type));
		if (norm > max_norm) {
			const float factor = (float)((double)max_norm / ((double)norm + 1e-7)); // a double expression in PyTorch
			for (long long j = lane; j < d; j += 32)
				row[j] = __fmul_rn(row[j], factor);
		}
	}
}

extern "C" __global__ void __launch_bounds__(256)
gather_rows(const long long* __restrict__ indices, const float* __restrict__ weight, float* __restrict__ out,
            long long npos, long long d)
{
	const long long total = npos * d;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
		const long long p = e / d, j = e - p * d;
		out[e] = weight[indices[p] * d + j];
	}
}

// out = emb + other, other [ob, ol, od] with each dim 1 or equal to [b, l, d].
extern "C" __global__ void __launch_bounds__(256)
add_bcast(const float* __restrict__ emb, const float* __restrict__ other, float* __restrict__ out, long long b,
          long long l, long long d, long long ob, long long ol, long long od)
{
	const long long total = b * l * d;
	const bool full = ob == b && ol == l && od == d;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
		long long oi = e;
		if (!full) {
			const long long j = e % d, q = (e / d) % l, s = e / (d * l);
			oi = ((ob == 1 ? 0 : s) * ol + (ol == 1 ? 0 : q)) * od + (od == 1 ? 0 : j);
		}
		out[e] = __fadd_rn(emb[e], other[oi]);
	}
}

extern "C" __global__ void __launch_bounds__(256)
tanh_fwd(const float* __restrict__ x, float* __restrict__ y, long long total)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x)
		y[e] = tanhf(x[e]);
}
