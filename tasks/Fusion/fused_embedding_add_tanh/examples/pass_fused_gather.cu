// @kbx expect pass
// Correct alternative: the renormalisation as in the reference (flag the selected rows, then one
// warp per flagged row scales it in place, f32 sums here), then one fused kernel gathers, adds
// `other` (broadcast) and applies tanh with a single store; no intermediate [b, l, d] buffers.
//
// @kbx scratch flags i32 [v]
// @kbx launch zero_flags<<<max(1, cdiv(v, 256)), 256>>>(flags, v)
// @kbx launch set_flags<<<max(1, cdiv(b * l, 256)), 256>>>(indices, flags, i64(b * l))
// @kbx launch renorm<<<max(1, cdiv(v, 8)), 256>>>(weight, flags, v, d, max_norm, norm_type)
// @kbx launch gather_add_tanh<<<max(1, min(cdiv(b * l * d, 256), 65536)), 256>>>(indices, weight, other, y, b, l, d, ob, ol, od)

extern "C" __global__ void zero_flags(int* f, long long v)
{
	long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (r < v)
		f[r] = 0;
}

extern "C" __global__ void set_flags(const long long* __restrict__ idx, int* __restrict__ f, long long n)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (p < n)
		f[idx[p]] = 1;
}

extern "C" __global__ void renorm(float* __restrict__ w, const int* __restrict__ f, long long v, long long d, float max_norm,
                                  float p)
{
	long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (max_norm < 0.0f || r >= v || !f[r])
		return;
	float s = 0.0f;
	for (long long j = lane; j < d; j += 32) {
		float x = w[r * d + j];
		s += p == 1.0f ? fabsf(x) : p == 2.0f ? x * x : powf(x, p);
	}
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	float norm = p == 1.0f ? s : p == 2.0f ? sqrtf(s) : powf(s, 1.0f / p);
	if (norm > max_norm) {
		float factor = (float)((double)max_norm / ((double)norm + 1e-7));
		for (long long j = lane; j < d; j += 32)
			w[r * d + j] *= factor;
	}
}

extern "C" __global__ void gather_add_tanh(const long long* __restrict__ idx, const float* __restrict__ w,
                                           const float* __restrict__ other, float* __restrict__ y, long long b, long long l,
                                           long long d, long long ob, long long ol, long long od)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < b * l * d; e += (long long)gridDim.x * blockDim.x) {
		long long j = e % d, q = (e / d) % l, s = e / (d * l);
		long long oi = ((ob == 1 ? 0 : s) * ol + (ol == 1 ? 0 : q)) * od + (od == 1 ? 0 : j);
		y[e] = tanhf(w[idx[e / d] * d + j] + other[oi]);
	}
}
