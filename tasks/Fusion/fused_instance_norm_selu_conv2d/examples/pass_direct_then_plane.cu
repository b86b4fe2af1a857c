// @kbx expect pass
// Correct alternative: two kernels. The first computes each conv output directly (one thread per
// output, f32 fmaf over ci, ky, kx, then the bias) and applies selu in registers, storing only the
// `selu` stage; the second normalises each (n, co) plane with one block, two f32 passes (mean,
// then centred squares) over the plane held in global memory.
//
// @kbx scratch selu f32 [nb, cout, (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1]
// @kbx launch conv_selu<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 65536)), 256>>>(input, weight, bias, selu, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch plane_norm<<<max(1, min(nb * cout, 65535)), 256>>>(selu, y, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), eps)

extern "C" __global__ void conv_selu(const float* __restrict__ input, const float* __restrict__ weight,
                                     const float* __restrict__ bias, float* __restrict__ out, long long nb,
                                     long long cin, long long h, long long w, long long cout, long long kh, long long kw,
                                     long long stride, long long padding, long long dilation, long long groups,
                                     int has_bias)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < nb * cout * oh * ow;
	     e += (long long)gridDim.x * blockDim.x) {
		long long ox = e % ow, t = e / ow, oy = t % oh;
		t /= oh;
		long long co = t % cout, n = t / cout, g = co / cout_g;
		float acc = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++)
				for (long long kx = 0; kx < kw; kx++) {
					long long iy = oy * stride - padding + ky * dilation, ix = ox * stride - padding + kx * dilation;
					if (iy >= 0 && iy < h && ix >= 0 && ix < w)
						acc = fmaf(input[((n * cin + g * cin_g + ci) * h + iy) * w + ix],
						           weight[((co * cin_g + ci) * kh + ky) * kw + kx], acc);
				}
		if (has_bias)
			acc += bias[co];
		out[e] = acc > 0.0f ? acc * 1.05070099f : expm1f(acc) * 1.75809932f;
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
