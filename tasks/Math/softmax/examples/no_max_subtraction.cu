// @kbx expect wrong
// Mistake: skips the max subtraction and computes exp(x) / sum(exp(x)). Mathematically equal, but exp
// overflows past x ~ 88.7: inf / inf = NaN (large_values and large_values_strided fail).
// @kbx launch softmax_f32<<<max(1, a * b), 256>>>(x, y, a, d, b)

extern "C" __global__ void softmax_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long d,
				      long long b)
{
	__shared__ float part[256];
	long long r = blockIdx.x;
	if (r >= a * b || d == 0)
		return;
	long long o = r / b, i = r % b;
	const float *xs = x + o * d * b + i;
	float *ys = y + o * d * b + i;
	float s = 0.0f;
	for (long long k = threadIdx.x; k < d; k += blockDim.x)
		s += expf(xs[k * b]);
	part[threadIdx.x] = s;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			part[threadIdx.x] += part[threadIdx.x + h];
		__syncthreads();
	}
	s = part[0];
	for (long long k = threadIdx.x; k < d; k += blockDim.x)
		ys[k * b] = expf(xs[k * b]) / s;
}
