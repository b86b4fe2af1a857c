// @kbx expect pass
// Correct alternative: one 256-thread block per row keeps the row's logits in shared memory and
// produces everything from them in f32: the row's loss terms (into the reference's scratch names)
// and its layer-normalised probabilities (two-pass mean and variance). A second kernel reduces the
// loss terms in one block.
//
// @kbx scratch nll_loss f32 [n]
// @kbx scratch nll_weight f32 [n]
// @kbx scratch smooth_loss f32 [n]
// @kbx launch ce_ln_rows<<<max(1, n), 256, max(1, c) * 4>>>(logits, targets, weight, nll_loss, nll_weight, smooth_loss, output, n, c, ignore_index, label_smoothing, eps)
// @kbx launch ce_reduce<<<1, 1024>>>(nll_loss, nll_weight, smooth_loss, loss, n, c, reduction, label_smoothing)

static __device__ float bsum(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = 0.0f;
	for (int w = 0; w < 8; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

static __device__ float bmax(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = sh[0];
	for (int w = 1; w < 8; w++)
		r = fmaxf(r, sh[w]);
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
ce_ln_rows(const float* __restrict__ x, const long long* __restrict__ targets, const float* __restrict__ weight,
           float* __restrict__ nll, float* __restrict__ nllw, float* __restrict__ smooth, float* __restrict__ out,
           long long n, long long c, long long ignore_index, float ls, float eps)
{
	extern __shared__ float row[];
	__shared__ float sh[8];
	const long long r = blockIdx.x;
	if (r >= n)
		return;
	for (long long j = threadIdx.x; j < c; j += 256)
		row[j] = x[r * c + j];
	__syncthreads();
	float m = __int_as_float(0xff800000);
	for (long long j = threadIdx.x; j < c; j += 256)
		m = fmaxf(m, row[j]);
	m = bmax(m, sh);
	float s = 0.0f;
	for (long long j = threadIdx.x; j < c; j += 256)
		s += expf(row[j] - m);
	s = bsum(s, sh);
	const float lse = logf(s);
	const long long t = targets[r];
	const bool keep = t != ignore_index;
	float sm = 0.0f;
	if (ls > 0.0f && keep)
		for (long long j = threadIdx.x; j < c; j += 256)
			sm += weight[j] * ((row[j] - m) - lse);
	sm = bsum(sm, sh);
	if (threadIdx.x == 0) {
		nll[r] = keep ? -weight[t] * ((row[t] - m) - lse) : 0.0f;
		nllw[r] = keep ? weight[t] : 0.0f;
		smooth[r] = -sm;
	}
	// probabilities, then their layer norm
	float ps = 0.0f;
	for (long long j = threadIdx.x; j < c; j += 256)
		ps += expf(row[j] - m) / s;
	const float mu = bsum(ps, sh) / (float)c;
	float q = 0.0f;
	for (long long j = threadIdx.x; j < c; j += 256) {
		float d = expf(row[j] - m) / s - mu;
		q += d * d;
	}
	const float rstd = rsqrtf(bsum(q, sh) / (float)c + eps);
	for (long long j = threadIdx.x; j < c; j += 256)
		out[r * c + j] = (expf(row[j] - m) / s - mu) * rstd;
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
