// @kbx expect wrong
// Mistake: a missing grid-wide dependency. Batch norm is fused with relu in one kernel, one block
// per (image, channel) plane, and each block computes "the batch statistics" from its own plane
// only, so no block has to wait for the others. That is instance norm: right in eval (running
// statistics) and when nb = 1, wrong in every training case with nb > 1 (test_case_1_training,
// random_*, training_cnt2, ...); the running statistics are updated from image 0's plane. Same
// scratch names as the reference: conv2d matches, the first wrong stage reported is `batch_norm`.
//
// @kbx scratch conv2d f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx scratch batch_norm f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx launch conv2d_igemm<<<dim3(max(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 64)), max(1, cdiv(cout / groups, 64)), max(1, groups)), 256>>>(input, weight, bias, conv2d, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch bn_relu_plane<<<max(1, min(nb * cout, 65535)), 256>>>(conv2d, running_mean, running_var, bn_weight, bn_bias, batch_norm, y, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), training, momentum, eps)

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

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ float block_sum(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = 0.0f;
	for (int i = 0; i < 8; i++)
		r += sh[i];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
bn_relu_plane(const float* __restrict__ x, float* __restrict__ running_mean, float* __restrict__ running_var,
              const float* __restrict__ weight, const float* __restrict__ bias, float* __restrict__ bn,
              float* __restrict__ y, long long nb, long long c, long long hw, int training, float momentum, float eps)
{
	__shared__ float sh[8];
	for (long long plane = blockIdx.x; plane < nb * c; plane += gridDim.x) {
		const long long ch = plane % c;
		const float* xp = x + plane * hw;
		float mean, invstd;
		if (training) {
			// BUG: the statistics of this block's plane only, not of the channel over the batch
			float s = 0.0f;
			for (long long i = threadIdx.x; i < hw; i += 256)
				s += xp[i];
			mean = block_sum(s, sh) / (float)hw;
			float q = 0.0f;
			for (long long i = threadIdx.x; i < hw; i += 256)
				q += (xp[i] - mean) * (xp[i] - mean);
			float var = block_sum(q, sh) / (float)hw;
			invstd = 1.0f / sqrtf(var + eps);
			if (threadIdx.x == 0 && plane / c == 0) {
				running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean;
				running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * var * (float)hw / (float)(hw - 1);
			}
		} else {
			mean = running_mean[ch];
			invstd = 1.0f / sqrtf(running_var[ch] + eps);
		}
		for (long long i = threadIdx.x; i < hw; i += 256) {
			float v = (xp[i] - mean) * invstd * weight[ch] + bias[ch];
			bn[plane * hw + i] = v;
			y[plane * hw + i] = v > 0.0f || v != v ? v : 0.0f;
		}
	}
}
