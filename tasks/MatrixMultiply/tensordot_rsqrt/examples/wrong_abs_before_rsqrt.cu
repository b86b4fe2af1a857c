// @kbx expect wrong
// Mistake: rsqrt of |sum| "to avoid NaN". The random cases have positive sums and pass; a
// negative sum must give NaN as torch.rsqrt does (special_values: [1, -1] . [1, 2] = -1).
//
// @kbx launch tensordot_abs<<<max(1, min(cdiv(m * p * q, 256), sms * 16)), 256>>>(a, b, y, m, u, v, p, q)

extern "C" __global__ void tensordot_abs(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ y, long long m, long long u, long long v,
                                         long long p, long long q)
{
	const long long total = m * p * q;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long t = o % q, s = (o / q) % p, i = o / (p * q);
		float acc = 0.0f;
		for (long long j = 0; j < u; j++)
			for (long long l = 0; l < v; l++)
				acc = fmaf(a[(i * u + j) * v + l], b[((s * v + l) * u + j) * q + t], acc);
		y[o] = rsqrtf(fabsf(acc));
	}
}
