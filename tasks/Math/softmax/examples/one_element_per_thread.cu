// @kbx expect wrong
// Mistake: rows longer than a block not handled. Each of the 1024 threads of a block holds one element of the
// slice, so slices longer than 1024 lose everything past it: their max and sum are wrong and the tail is never
// written (long_rows, long_rows_vec4, masked_long_rows, all_ninf_long_rows fail).
// @kbx launch softmax_f32<<<max(1, a * b), 1024>>>(x, y, a, d, b)

extern "C" __global__ void softmax_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long d,
				      long long b)
{
	__shared__ float part[1024];
	long long r = blockIdx.x;
	if (r >= a * b || d == 0)
		return;
	long long o = r / b, i = r % b;
	int t = threadIdx.x;
	float v = t < d ? x[(o * d + t) * b + i] : -__int_as_float(0x7f800000);
	part[t] = v;
	__syncthreads();
	for (int h = 512; h > 0; h >>= 1) {
		if (t < h)
			part[t] = fmaxf(part[t], part[t + h]);
		__syncthreads();
	}
	float m = part[0];
	__syncthreads();
	float e = t < d ? expf(v - m) : 0.0f;
	part[t] = e;
	__syncthreads();
	for (int h = 512; h > 0; h >>= 1) {
		if (t < h)
			part[t] += part[t + h];
		__syncthreads();
	}
	if (t < d)
		y[(o * d + t) * b + i] = e / part[0];
}
