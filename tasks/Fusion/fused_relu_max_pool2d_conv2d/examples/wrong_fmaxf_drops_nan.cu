// @kbx expect wrong
// Mistake: the pool's max taken with fmaxf, which returns the non-NaN operand: a NaN in a window is
// dropped instead of propagated (PyTorch's max_pool2d keeps it). Right on finite data, wrong on
// special_values. Same stages and scratch names as the reference: `conv2d` matches, the first
// wrong stage reported is `max_pool2d`.
//
// @kbx scratch conv2d f32 [nb, cout, ((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1), ((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1)]
// @kbx scratch max_pool2d f32 [nb, cout, ((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1), ((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1)]
// @kbx launch conv2d_igemm<<<dim3(max(1, cdiv(nb * ((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) * ((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1), 64)), max(1, cdiv(cout / conv_groups, 64)), max(1, conv_groups)), 256>>>(input, weight, bias, conv2d, nb, cin, h, w, cout, kh, kw, conv_stride, conv_padding, conv_dilation, conv_groups, has_bias)
// @kbx launch max_pool2d<<<max(1, min(cdiv(nb * cout * ((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1) * ((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1), 256), 65536)), 256>>>(conv2d, max_pool2d, i64(nb * cout), i64(((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1)), i64(((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1)), i64(((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1)), i64(((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1)), pool_k, pool_stride, pool_padding)
// @kbx launch relu<<<max(1, min(cdiv(nb * cout * ((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1) * ((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1), 1024), 65536)), 256>>>(max_pool2d, y, i64(nb * cout * ((((h + 2 * conv_padding - conv_dilation * (kh - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1) * ((((w + 2 * conv_padding - conv_dilation * (kw - 1) - 1) / conv_stride + 1) + 2 * pool_padding - pool_k) / pool_stride + 1)))

#define CONV_BM 64
#define CONV_BN 64
// Implicit GEMM, per group g: conv_g [cout/groups, P] = W_g [cout/groups, K] @ X_g [K, P], where
// K = cin/groups * kh * kw (ordered ci, ky, kx as in weight) and P = nb * oh * ow (ordered n, oy, ox);
// X_g is the im2col of the group's input channels, gathered on the fly (padding taps load 0).
// A 256-thread block computes a CONV_BM (channels) x CONV_BN (pixels) tile, staging k through
// shared memory CONV_BK at a time; each thread accumulates a 4 x 4 register block with a
// sequential fmaf chain over k (f32, no TF32), then adds the bias.
// Grid: x over pixel tiles, y over channel tiles of a group, z over groups.
#define CONV_BK 16
#define CONV_TX (CONV_BN / 4) // threads along pixels
#define CONV_TY (CONV_BM / 4) // threads along channels (CONV_TX * CONV_TY == 256)

extern "C" __global__ void __launch_bounds__(256)
conv2d_igemm(const float* __restrict__ input, const float* __restrict__ weight, const float* __restrict__ bias,
             float* __restrict__ out, long long nb, long long cin, long long h, long long w, long long cout,
             long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
             int has_bias)
{
	__shared__ float Ws[CONV_BK][CONV_BM + 1]; // Ws[kk][channel]
	__shared__ float Xs[CONV_BK][CONV_BN];     // Xs[kk][pixel]

	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long khw = kh * kw, K = cin_g * khw, P = oh * ow, N = nb * P;
	const int tid = threadIdx.x, tx = tid % CONV_TX, ty = tid / CONV_TX;
	const long long g = blockIdx.z;
	const long long co0 = (long long)blockIdx.y * CONV_BM, j0 = (long long)blockIdx.x * CONV_BN;
	const float* Wg = weight + g * cout_g * K;

	// CONV_BN divides 256: the im2col column this thread loads is the same in every k slice.
	const int jj = tid % CONV_BN;
	const long long jl = j0 + jj;
	const bool j_ok = jl < N;
	long long iy0 = 0, ix0 = 0;
	const float* xin = input;
	if (j_ok) {
		long long img = jl / P, rem = jl % P;
		iy0 = (rem / ow) * stride - padding;
		ix0 = (rem % ow) * stride - padding;
		xin = input + (img * cin + g * cin_g) * h * w;
	}

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < K; k0 += CONV_BK) {
		for (int idx = tid; idx < CONV_BM * CONV_BK; idx += 256) { // consecutive threads along k
			int row = idx / CONV_BK, kk = idx % CONV_BK;
			long long co = co0 + row, kg = k0 + kk;
			Ws[kk][row] = (co < cout_g && kg < K) ? Wg[co * K + kg] : 0.0f;
		}
		for (int kk = tid / CONV_BN; kk < CONV_BK; kk += 256 / CONV_BN) { // consecutive threads along pixels
			long long kg = k0 + kk;
			float v = 0.0f;
			if (j_ok && kg < K) {
				long long ci = kg / khw, t = kg % khw;
				long long iy = iy0 + (t / kw) * dilation, ix = ix0 + (t % kw) * dilation;
				if (iy >= 0 && iy < h && ix >= 0 && ix < w)
					v = xin[(ci * h + iy) * w + ix];
			}
			Xs[kk][jj] = v;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < CONV_BK; kk++) {
			float wv[4], xv[4];
			for (int i = 0; i < 4; i++)
				wv[i] = Ws[kk][ty + CONV_TY * i];
			for (int j = 0; j < 4; j++)
				xv[j] = Xs[kk][tx + CONV_TX * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(wv[i], xv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int j = 0; j < 4; j++) {
		long long jo = j0 + tx + CONV_TX * j;
		if (jo >= N)
			continue;
		long long img = jo / P, rem = jo % P;
		for (int i = 0; i < 4; i++) {
			long long co = co0 + ty + CONV_TY * i;
			if (co >= cout_g)
				continue;
			long long c = g * cout_g + co;
			float v = acc[i][j];
			if (has_bias)
				v += bias[c];
			out[(img * cout + c) * P + rem] = v;
		}
	}
}

// One thread per pooled output (grid-stride, coalesced stores). Taps outside the conv output are
// the implicit -inf padding: skipped. NaN wins like PyTorch's `val > max || isnan(val)`.
extern "C" __global__ void __launch_bounds__(256)
max_pool2d(const float* __restrict__ x, float* __restrict__ out, long long planes, long long ih, long long iw,
           long long ph, long long pw, long long k, long long stride, long long pad)
{
	const long long total = planes * ph * pw;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		const long long px = o % pw, py = (o / pw) % ph, plane = o / (pw * ph);
		const float* xp = x + plane * ih * iw;
		const long long y0 = py * stride - pad, x0 = px * stride - pad;
		float m = __int_as_float(0xff800000); // -inf
		for (long long dy = 0; dy < k; dy++) {
			const long long iy = y0 + dy;
			if (iy < 0 || iy >= ih)
				continue;
			for (long long dx = 0; dx < k; dx++) {
				const long long ix = x0 + dx;
				if (ix < 0 || ix >= iw)
					continue;
				const float v = xp[iy * iw + ix];
				m = fmaxf(m, v); // BUG: fmaxf returns the other operand when one is NaN
			}
		}
		out[o] = m;
	}
}

// torch.relu: max(v, 0) with NaN propagated.
extern "C" __global__ void __launch_bounds__(256)
relu(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float v = x[i];
		y[i] = v > 0.0f || v != v ? v : 0.0f;
	}
}
