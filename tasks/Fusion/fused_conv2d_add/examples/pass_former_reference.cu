// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_conv2d_add reference: the two PyTorch stages, each into its own buffer.
//   stage `conv2d` (F.conv2d(input, weight, bias, stride, padding, dilation, groups)):
//       conv2d[s, co, oy, ox] = bias[co] + sum over ci < c / groups, ky, kx of
//           input[s, g * c / groups + ci, oy * stride - padding + ky * dilation,
//                 ox * stride - padding + kx * dilation] * weight[co, ci, ky, kx]
//       (g = co / (oc / groups), zero padding outside the image)
//   stage add      (result + alpha * other): y = conv2d + alpha * other (other broadcast; alpha * other
//       rounded to f32, then the sum, as eager PyTorch)
// Keeping `conv2d` in memory costs one extra write and read of the output: the price of a
// reference whose stages can be diffed.
//
// conv2d_fwd: blockIdx.y walks the (sample, output channel) planes; the plane's filter
// (c / groups * kh * kw floats) is staged in shared memory and the x threads walk the plane's
// output pixels (neighbouring threads read neighbouring input pixels). The products are accumulated
// in f64 and rounded once: `conv2d` is the correctly rounded f32 convolution. PyTorch's cuDNN may use
// TF32 (torch.backends.cudnn.allow_tf32 defaults to True), ~1e-3 relative; the function's definition
// is the exact sum, which is what this reference computes.
//
// @kbx scratch conv2d f32 [n, oc, ho, wo]
// @kbx launch conv2d_fwd<<<dim3(max(1, min(cdiv(ho * wo, 256), 4096)), max(1, min(n * oc, 65535))), 256, max(1, c / groups * kh * kw) * 4>>>(input, weight, bias, conv2d, n, c, h, w, oc, kh, kw, ho, wo, stride, padding, dilation, groups)
// @kbx launch add_alpha<<<dim3(max(1, min(cdiv(ho * wo, 1024), 4096)), max(1, min(n * oc, 65535))), 256>>>(conv2d, other, y, n, oc, ho, wo, on, ooc, oh, ow, alpha)

extern "C" __global__ void __launch_bounds__(256)
conv2d_fwd(const float* __restrict__ x, const float* __restrict__ wt, const float* __restrict__ bias,
           float* __restrict__ out, long long n, long long c, long long h, long long w, long long oc, long long kh,
           long long kw, long long ho, long long wo, long long stride, long long pad, long long dil, long long groups)
{
	extern __shared__ float filt[];
	const long long cg = c / groups, ocg = oc / groups, fsize = cg * kh * kw;
	for (long long plane = blockIdx.y; plane < n * oc; plane += gridDim.y) {
		const long long s = plane / oc, co = plane % oc, g = co / ocg;
		__syncthreads(); // the previous plane's filter is no longer read
		for (long long t = threadIdx.x; t < fsize; t += blockDim.x)
			filt[t] = wt[co * fsize + t];
		__syncthreads();
		const float* xs = x + (s * c + g * cg) * h * w;
		const double b0 = (double)bias[co];
		for (long long pix = (long long)blockIdx.x * blockDim.x + threadIdx.x; pix < ho * wo;
		     pix += (long long)gridDim.x * blockDim.x) {
			const long long oy = pix / wo, ox = pix % wo;
			double acc = b0;
			for (long long ci = 0; ci < cg; ci++) {
				const float* xc = xs + ci * h * w;
				const float* fc = filt + ci * kh * kw;
				for (long long ky = 0; ky < kh; ky++) {
					const long long iy = oy * stride - pad + ky * dil;
					if (iy < 0 || iy >= h)
						continue;
					for (long long kx = 0; kx < kw; kx++) {
						const long long ix = ox * stride - pad + kx * dil;
						if (ix >= 0 && ix < w)
							acc += (double)xc[iy * w + ix] * (double)fc[ky * kw + kx];
					}
				}
			}
			out[plane * ho * wo + pix] = (float)acc;
		}
	}
}

// y = conv + alpha * other, other [on, ooc, oh, ow] with each dim 1 or equal to y's.
extern "C" __global__ void __launch_bounds__(256)
add_alpha(const float* __restrict__ conv, const float* __restrict__ other, float* __restrict__ y, long long n,
          long long oc, long long ho, long long wo, long long on, long long ooc, long long oh, long long ow, float alpha)
{
	const long long hw = ho * wo;
	for (long long plane = blockIdx.y; plane < n * oc; plane += gridDim.y) {
		const long long s = plane / oc, co = plane % oc;
		const float* op = other + ((on == 1 ? 0 : s) * ooc + (ooc == 1 ? 0 : co)) * oh * ow;
		for (long long pix = (long long)blockIdx.x * blockDim.x + threadIdx.x; pix < hw;
		     pix += (long long)gridDim.x * blockDim.x) {
			const long long r = pix / wo, q = pix % wo;
			const float o = op[(oh == 1 ? 0 : r) * ow + (ow == 1 ? 0 : q)];
			y[plane * hw + pix] = __fadd_rn(conv[plane * hw + pix], __fmul_rn(alpha, o));
		}
	}
}
