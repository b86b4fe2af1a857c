// @kbx expect pass
// The former reference, replaced on 2026-12-01 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// conv2d reference: implicit GEMM, f32 accumulation.
//
// For group g the convolution is a matrix product Y_g = W_g @ X_g with
//   W_g [cout/groups, K]  the weights of the group's output channels (already row-major in weight),
//   X_g [K, N]            the im2col of the group's input channels, built on the fly,
//   K = cin/groups * kh * kw (ordered ci, ky, kx as in weight),  N = nb * oh * ow (ordered n, oy, ox).
// A 256-thread block computes a 64 (output channels) x 64 (output pixels) tile; k is staged through
// shared memory 16 at a time (out-of-range weights, pixels and padding taps load as 0) and each
// thread accumulates a 4 x 4 register block with a sequential fmaf chain over k, then adds the bias.
// Grid: x over pixel tiles, y over channel tiles of one group, z over groups.
//
// @kbx launch conv2d_igemm<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 64)), max(1, cdiv(cout / groups, 64)), max(1, groups)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)

#define BM 64 // output channels per tile
#define BN 64 // output pixels per tile
#define BK 16

extern "C" __global__ void __launch_bounds__(256)
conv2d_igemm(const float* __restrict__ input, const float* __restrict__ weight,
             const float* __restrict__ bias, float* __restrict__ y,
             long long nb, long long cin, long long h, long long w, long long cout,
             long long kh, long long kw, long long stride, long long padding, long long dilation,
             long long groups, int has_bias)
{
	__shared__ float Ws[BK][BM + 1]; // Ws[kk][channel], padded against store conflicts
	__shared__ float Xs[BK][BN];     // Xs[kk][pixel]

	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long khw = kh * kw;
	const long long K = cin_g * khw;
	const long long P = oh * ow;
	const long long N = nb * P;

	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long g = blockIdx.z;
	const long long co0 = (long long)blockIdx.y * BM;
	const long long j0 = (long long)blockIdx.x * BN;
	const float* Wg = weight + g * cout_g * K;

	// The im2col column this thread loads is fixed for the whole k loop: decompose it once.
	const int jj = tid % BN;
	const long long jl = j0 + jj;
	const bool j_ok = jl < N;
	long long iy0 = 0, ix0 = 0;
	const float* xin = input;
	if (j_ok) {
		long long nimg = jl / P, rem = jl % P;
		iy0 = (rem / ow) * stride - padding;
		ix0 = (rem % ow) * stride - padding;
		xin = input + (nimg * cin + g * cin_g) * h * w;
	}

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < K; k0 += BK) {
		// weight tile: 64 channels x 16 k, consecutive threads along k
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / BK, kk = idx % BK;
			long long co = co0 + row, kg = k0 + kk;
			Ws[kk][row] = (co < cout_g && kg < K) ? Wg[co * K + kg] : 0.0f;
		}
		// im2col tile: 16 k x 64 pixels, consecutive threads along pixels
		for (int r = 0; r < 4; r++) {
			int kk = tid / BN + 4 * r;
			long long kg = k0 + kk;
			float v = 0.0f;
			if (j_ok && kg < K) {
				long long ci = kg / khw, t = kg % khw;
				long long iy = iy0 + (t / kw) * dilation;
				long long ix = ix0 + (t % kw) * dilation;
				if (iy >= 0 && iy < h && ix >= 0 && ix < w)
					v = xin[(ci * h + iy) * w + ix];
			}
			Xs[kk][jj] = v;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float wv[4], xv[4];
			for (int i = 0; i < 4; i++)
				wv[i] = Ws[kk][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				xv[j] = Xs[kk][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(wv[i], xv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int j = 0; j < 4; j++) {
		long long jo = j0 + tx + 16 * j;
		if (jo >= N)
			continue;
		long long nimg = jo / P, rem = jo % P;
		for (int i = 0; i < 4; i++) {
			long long co = co0 + ty + 16 * i;
			if (co >= cout_g)
				continue;
			long long c = g * cout_g + co;
			float v = acc[i][j];
			if (has_bias)
				v += bias[c];
			y[(nimg * cout + c) * P + rem] = v;
		}
	}
}
