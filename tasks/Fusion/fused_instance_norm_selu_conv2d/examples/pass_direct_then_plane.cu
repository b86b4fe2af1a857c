// @kbx expect pass
// Correct alternative: two kernels. The first computes each conv output directly (f32 fmaf over
// ci, ky, kx, then the bias; 8 channels x 4 columns a thread) and applies selu in registers,
// storing only the `selu` stage; the second normalises each (n, co) plane with one block, two f32
// passes (mean, then centred squares) over the plane held in global memory.
//
// @kbx scratch selu f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx launch conv_selu<<<max(1, min(cdiv(nb * groups * cdiv(cout / groups, 8) * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * cdiv(((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 4), 256), 65536)), 256>>>(input, weight, bias, selu, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch plane_norm<<<max(1, min(nb * cout, 65535)), 256>>>(selu, y, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), eps)

extern "C" __global__ void conv_selu(const float* __restrict__ input, const float* __restrict__ weight,
                                       const float* __restrict__ bias, float* __restrict__ out, long long nb,
                                       long long cin, long long h, long long w, long long cout, long long kh,
                                       long long kw, long long stride, long long padding, long long dilation,
                                       long long groups, int has_bias)
{
	// One thread: CB output channels (of one group) x PX neighbouring output columns of one row,
	// the sums in registers. Each output is the same f32 fmaf chain over (ci, ky, kx) as a
	// one-thread-per-output kernel, taps outside the image skipped; a loaded input serves CB
	// channels and a loaded weight PX columns.
	enum { CB = 8, PX = 4 };
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups, taps = kh * kw;
	const long long cblocks = (cout_g + CB - 1) / CB, xblocks = (ow + PX - 1) / PX;
	const long long units = nb * groups * cblocks * oh * xblocks;
	for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < units;
	     u += (long long)gridDim.x * blockDim.x) {
		long long t = u;
		const long long xb = t % xblocks;
		t /= xblocks;
		const long long oy = t % oh;
		t /= oh;
		const long long cb = t % cblocks;
		t /= cblocks;
		const long long g = t % groups, n = t / groups;
		const long long co0 = g * cout_g + cb * CB, ox0 = xb * PX;
		const int nc = (int)min((long long)CB, cout_g - cb * CB), np = (int)min((long long)PX, ow - ox0);
		float acc[CB][PX];
#pragma unroll
		for (int j = 0; j < CB; j++)
#pragma unroll
			for (int p = 0; p < PX; p++)
				acc[j][p] = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++) {
			const float* xp = input + (n * cin + g * cin_g + ci) * h * w;
			const float* wp = weight + (co0 * cin_g + ci) * taps;
			for (long long ky = 0; ky < kh; ky++) {
				const long long iy = oy * stride - padding + ky * dilation;
				if (iy < 0 || iy >= h)
					continue;
				for (long long kx = 0; kx < kw; kx++) {
					float xv[PX], wv[CB];
					bool in[PX];
#pragma unroll
					for (int p = 0; p < PX; p++) {
						const long long ix = (ox0 + p) * stride - padding + kx * dilation;
						in[p] = p < np && ix >= 0 && ix < w;
						xv[p] = in[p] ? xp[iy * w + ix] : 0.0f;
					}
#pragma unroll
					for (int j = 0; j < CB; j++)
						wv[j] = j < nc ? wp[j * cin_g * taps + ky * kw + kx] : 0.0f;
#pragma unroll
					for (int j = 0; j < CB; j++)
#pragma unroll
						for (int p = 0; p < PX; p++)
							if (in[p])
								acc[j][p] = fmaf(xv[p], wv[j], acc[j][p]);
				}
			}
		}
#pragma unroll
		for (int j = 0; j < CB; j++)
#pragma unroll
			for (int p = 0; p < PX; p++)
				if (j < nc && p < np) {
					const long long co = co0 + j;
					float v = has_bias ? acc[j][p] + bias[co] : acc[j][p];
					out[((n * cout + co) * oh + oy) * ow + ox0 + p] = v > 0.0f ? v * 1.05070099f : expm1f(v) * 1.75809932f;
				}
	}
}

__device__ float block_sum(float v, float* sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	float r = sh[0];
	__syncthreads();
	return r;
}

extern "C" __global__ void plane_norm(const float* __restrict__ s, float* __restrict__ y, long long planes,
                                      long long cnt, float eps)
{
	__shared__ float sh[256];
	for (long long p = blockIdx.x; p < planes; p += gridDim.x) {
		const float* xp = s + p * cnt;
		float acc = 0.0f;
		for (long long e = threadIdx.x; e < cnt; e += 256)
			acc += xp[e];
		const float mean = block_sum(acc, sh) / (float)cnt;
		acc = 0.0f;
		for (long long e = threadIdx.x; e < cnt; e += 256) {
			float d = xp[e] - mean;
			acc = fmaf(d, d, acc);
		}
		const float invstd = rsqrtf(block_sum(acc, sh) / (float)cnt + eps);
		for (long long e = threadIdx.x; e < cnt; e += 256)
			y[p * cnt + e] = (xp[e] - mean) * invstd;
	}
}
