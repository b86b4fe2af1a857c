// @kbx expect pass
// Correct alternative: one warp per row computes the loss terms from a single log_softmax: the
// second log_softmax inside F.cross_entropy is the identity up to rounding (the log-probabilities
// already sum to 1 after exp), so skipping it changes results by an ulp or so. f32 throughout; the
// per-sample terms go to the reference's scratch names, a single block reduces them in f32.
//
// @kbx scratch nll_loss f32 [n]
// @kbx scratch nll_weight f32 [n]
// @kbx scratch smooth_loss f32 [n]
// @kbx launch ce_warp_rows<<<max(1, cdiv(n, 8)), 256>>>(input, target, weight, nll_loss, nll_weight, smooth_loss, n, c, ignore_index, label_smoothing)
// @kbx launch ce_reduce<<<1, 1024>>>(nll_loss, nll_weight, smooth_loss, y, n, c, reduction, label_smoothing)

extern "C" __global__ void ce_warp_rows(const float* __restrict__ x, const long long* __restrict__ target,
                                        const float* __restrict__ weight, float* __restrict__ nll, float* __restrict__ nllw,
                                        float* __restrict__ smooth, long long n, long long c, long long ignore_index,
                                        float ls)
{
	long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (r >= n)
		return;
	const float* xr = x + r * c;
	float m = __int_as_float(0xff800000);
	for (long long j = lane; j < c; j += 32)
		m = fmaxf(m, xr[j]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	float s = 0.0f;
	for (long long j = lane; j < c; j += 32)
		s += expf(xr[j] - m);
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	const float lse = m + logf(s);
	long long t = target[r];
	bool keep = t != ignore_index;
	float sm = 0.0f;
	if (ls > 0.0f && keep) {
		for (long long j = lane; j < c; j += 32)
			sm += weight[j] * (xr[j] - lse);
		for (int o = 16; o > 0; o >>= 1)
			sm += __shfl_xor_sync(0xffffffffu, sm, o);
	}
	if (lane == 0) {
		nll[r] = keep ? -weight[t] * (xr[t] - lse) : 0.0f;
		nllw[r] = keep ? weight[t] : 0.0f;
		smooth[r] = -sm;
	}
}

extern "C" __global__ void ce_reduce(const float* __restrict__ nll, const float* __restrict__ nllw,
                                     const float* __restrict__ smooth, float* __restrict__ y, long long n, long long c,
                                     int reduction, float ls)
{
	__shared__ float sh[3][32];
	if (reduction == 0) {
		for (long long r = threadIdx.x; r < n; r += blockDim.x)
			y[r] = ls > 0.0f ? (1.0f - ls) * nll[r] + smooth[r] * (ls / (float)c) : nll[r];
		return;
	}
	float a = 0.0f, b = 0.0f, d = 0.0f;
	for (long long r = threadIdx.x; r < n; r += blockDim.x) {
		a += nll[r];
		b += nllw[r];
		d += smooth[r];
	}
	for (int o = 16; o > 0; o >>= 1) {
		a += __shfl_xor_sync(0xffffffffu, a, o);
		b += __shfl_xor_sync(0xffffffffu, b, o);
		d += __shfl_xor_sync(0xffffffffu, d, o);
	}
	if ((threadIdx.x & 31) == 0) {
		sh[0][threadIdx.x >> 5] = a;
		sh[1][threadIdx.x >> 5] = b;
		sh[2][threadIdx.x >> 5] = d;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		a = b = d = 0.0f;
		for (int w = 0; w < 32; w++) {
			a += sh[0][w];
			b += sh[1][w];
			d += sh[2][w];
		}
		if (reduction == 1) {
			a /= b;
			d /= b;
		}
		y[0] = ls > 0.0f ? (1.0f - ls) * a + d * (ls / (float)c) : a;
	}
}
