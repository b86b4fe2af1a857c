// @kbx expect pass
// @kbx perf_expect timeout: O(c^2) work; on the H200, alone, its launch at c = 2^21 (perf row 10) ran
// past kbx's 10 s limit (bench/perf_check.py, issue 22)
// Correct alternative, the definition itself: one thread per output, the double sum over the cropped
// input (zero padding adds nothing) with f64 twiddles from exact index products (i k0 mod s0, j k1 mod
// s1) and f64 accumulation, scaled and rounded once. O(n^2): fine for the correctness cases (the
// 65536-point ones take milliseconds), far too slow for the perf sizes.
// @kbx launch fft_direct<<<max(1, cdiv(b * s0 * s1, 128)), 128>>>(x, y, b, r, c, s0, s1, norm)

#define SIGN (-1.0)
#define SCALE (norm == 1 ? 1.0 / sqrt((double)(s0 * s1)) : norm == 2 ? 1.0 / (double)(s0 * s1) : 1.0)

extern "C" __global__ void fft_direct(const float2 *__restrict__ x, float2 *__restrict__ y, long long b, long long r,
				      long long c, long long s0, long long s1, int norm)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= b * s0 * s1)
		return;
	long long k1 = o % s1, k0 = (o / s1) % s0, m = o / (s0 * s1);
	long long ri = min(r, s0), cj = min(c, s1); /* the rest of x' is zero padding */
	double re = 0.0, im = 0.0;
	long long p0 = 0; /* i * k0 mod s0 */
	for (long long i = 0; i < ri; i++) {
		double s0w, c0w;
		sincospi(SIGN * 2.0 * (double)p0 / (double)s0, &s0w, &c0w);
		const float2 *row = x + (m * r + i) * c;
		double rre = 0.0, rim = 0.0;
		long long p1 = 0; /* j * k1 mod s1 */
		for (long long j = 0; j < cj; j++) {
			double sw, cw;
			sincospi(SIGN * 2.0 * (double)p1 / (double)s1, &sw, &cw);
			float2 v = row[j];
			rre += (double)v.x * cw - (double)v.y * sw;
			rim += (double)v.x * sw + (double)v.y * cw;
			p1 += k1;
			if (p1 >= s1)
				p1 -= s1;
		}
		re += rre * c0w - rim * s0w;
		im += rre * s0w + rim * c0w;
		p0 += k0;
		if (p0 >= s0)
			p0 -= s0;
	}
	double scale = SCALE;
	y[o] = make_float2((float)(re * scale), (float)(im * scale));
}
