// @kbx expect pass
// Correct alternative: one thread per output y[i, s, t] (grid-stride), a direct loop over the
// contracted pair (j, l) in a's memory order, and 1 / sqrtf(sum) instead of rsqrtf (both within
// a few ulp, same IEEE special cases). No shared memory: slower, same f32 sum.
//
// @kbx launch tensordot_direct<<<max(1, min(cdiv(m * p * q, 256), sms * 16)), 256>>>(a, b, y, m, u, v, p, q)

extern "C" __global__ void tensordot_direct(const float* __restrict__ a, const float* __restrict__ b,
                                            float* __restrict__ y, long long m, long long u, long long v,
                                            long long p, long long q)
{
	const long long total = m * p * q;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long t = o % q, s = (o / q) % p, i = o / (p * q);
		const float* ai = a + i * u * v;
		float acc = 0.0f;
		for (long long j = 0; j < u; j++)
			for (long long l = 0; l < v; l++)
				acc = fmaf(ai[j * v + l], b[((s * v + l) * u + j) * q + t], acc);
		y[o] = 1.0f / sqrtf(acc);
	}
}
