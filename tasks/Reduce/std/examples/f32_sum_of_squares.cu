// @kbx expect wrong
// Mistake: one-pass f32 textbook formula (sum x^2 - (sum x)^2 / n) / (n - correction). On data with a
// large mean (the offset_mean cases, values around 1000 or 100) the two f32 sums cancel and the
// result is garbage, even with a tree reduction.
// @kbx launch std_block<<<max(1, a * d), 256>>>(x, y, a, c, d, correction)

extern "C" __global__ void std_block(const float *__restrict__ x, float *__restrict__ y, long long a, long long c,
				     long long d, int correction)
{
	__shared__ float s1[256], s2[256];
	long long o = blockIdx.x;
	if (o >= a * d)
		return;
	long long i = o / d, l = o % d;
	float u = 0.f, v = 0.f;
	for (long long k = threadIdx.x; k < c; k += 256) {
		float e = x[(i * c + k) * d + l];
		u += e;
		v += e * e;
	}
	s1[threadIdx.x] = u;
	s2[threadIdx.x] = v;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h) {
			s1[threadIdx.x] += s1[threadIdx.x + h];
			s2[threadIdx.x] += s2[threadIdx.x + h];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		float n = (float)c;
		float m2 = s2[0] - s1[0] * s1[0] / n;
		float div = n > (float)correction ? n - (float)correction : 0.f;
		y[o] = sqrtf(fmaxf(m2, 0.f) / div);
	}
}
