// @kbx expect wrong
// Mistake: every tensordot is treated as a plain matrix product a [m, K] @ b [K, N] with b
// row-major, i.e. b's contracted dims are assumed to come first and in a's order. Right for
// dims = 1 and all 2-D cases, wrong for test_case_3_higher_dim (b's contracted dim is in the
// middle), the dims = ([2, 1], [0, 1]) draws (the pair order is swapped) and general_*.
//
// @kbx launch tensordot_plain<<<max(1, min(cdiv(m * p * q, 256), sms * 16)), 256>>>(a, b, y, m, u, v, p, q)

extern "C" __global__ void tensordot_plain(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ y, long long m, long long u, long long v,
                                           long long p, long long q)
{
	const long long K = u * v, N = p * q, total = m * N;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
	     o += (long long)gridDim.x * blockDim.x) {
		long long c = o % N, i = o / N;
		float acc = 0.0f;
		for (long long k = 0; k < K; k++)
			acc = fmaf(a[i * K + k], b[k * N + c], acc);
		y[o] = rsqrtf(acc);
	}
}
