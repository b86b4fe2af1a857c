// @kbx expect wrong
// Mistake: rounding_mode='floor' computed as floor(x / d) (here floor(x * inv)), not as Python's
// floor division through fmod: they differ where x / d rounds up onto an integer (floor_grid_01:
// -4.9 // 0.1 is -50, floor(-4.9 * 10) is -49) and for tiny negative x (special_floor: -1, not -0).
// Same scratch names as the reference: `hstack` matches, and the reference writes the `div` stage
// straight into y, so no scratch stage differs: the diff shows the output y as the wrong stage.
//
// @kbx scratch hstack f32 [r, k1 + k2]
// @kbx launch hstack_fwd<<<max(1, min(cdiv(r * (k1 + k2), 1024), 65536)), 256>>>(a, b, hstack, r, k1, k2)
// @kbx launch div_fwd<<<max(1, min(cdiv(r * (k1 + k2), 1024), 65536)), 256>>>(hstack, divisor, dvec, y, i64(r * (k1 + k2)), i64(k1 + k2), dmode, rounding)

extern "C" __global__ void __launch_bounds__(256)
hstack_fwd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x, long long r,
           long long k1, long long k2)
{
	const long long K = k1 + k2, total = r * K;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (r == 1) { // two contiguous copies
		for (long long j = tid; j < k1; j += stride)
			x[j] = a[j];
		for (long long j = tid; j < k2; j += stride)
			x[k1 + j] = b[j];
		return;
	}
	for (long long e = tid; e < total; e += stride) {
		long long i = e / K, j = e - i * K;
		x[e] = j < k1 ? a[i * k1 + j] : b[i * k2 + (j - k1)];
	}
}

// torch.div by a Python number d on CUDA (BinaryDiv*Kernel.cu, CPU-scalar branch), inv = 1.0f / d:
//   None: x * inv     trunc: trunc(x * inv)     floor: below (d = 0: x * inv)
static __device__ __forceinline__ float div_scalar(float x, float d, float inv, int rounding)
{
	if (rounding == 0)
		return __fmul_rn(x, inv);
	if (rounding == 1)
		return truncf(__fmul_rn(x, inv));
	return floorf(__fmul_rn(x, inv)); // BUG: not Python's floor division
}

// torch.div by a tensor: x / d, trunc(x / d), c10::div_floor_floating(x, d).
static __device__ __forceinline__ float div_tensor(float x, float d, int rounding)
{
	if (rounding == 0)
		return __fdiv_rn(x, d);
	if (rounding == 1)
		return truncf(__fdiv_rn(x, d));
	if (d == 0.0f)
		return __fdiv_rn(x, d);
	float mod = fmodf(x, d);
	float q = __fdiv_rn(__fsub_rn(x, mod), d);
	if (mod != 0.0f && (d < 0.0f) != (mod < 0.0f))
		q = __fsub_rn(q, 1.0f);
	if (q != 0.0f) {
		float fl = floorf(q);
		if (__fsub_rn(q, fl) > 0.5f)
			fl = __fadd_rn(fl, 1.0f);
		return fl;
	}
	return copysignf(0.0f, __fdiv_rn(x, d));
}

extern "C" __global__ void __launch_bounds__(256)
div_fwd(const float* __restrict__ x, float divisor, const float* __restrict__ dvec, float* __restrict__ y,
        long long n, long long K, int dmode, int rounding)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (dmode == 0) {
		const float inv = __fdiv_rn(1.0f, divisor);
		for (long long e = tid; e < n; e += stride)
			y[e] = div_scalar(x[e], divisor, inv, rounding);
		return;
	}
	for (long long e = tid; e < n; e += stride)
		y[e] = div_tensor(x[e], dvec[e % K], rounding);
}
