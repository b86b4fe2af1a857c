// @kbx expect pass
// Correct alternative: one kernel writes both outputs; the sign is taken as c < 0. That equals
// signbit here because cosf never returns -0 (cos has no exact zero at an f32 argument) and its NaN
// for NaN and +-inf inputs is the canonical positive NaN, whose signbit is false.
//
// @kbx launch cos_sign<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, cos_result, sign_bit, n)

extern "C" __global__ void cos_sign(const float* __restrict__ x, float* __restrict__ c, unsigned char* __restrict__ s,
                                    long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float v = cosf(x[i]);
		c[i] = v;
		s[i] = v < 0.0f;
	}
}
