// @kbx expect wrong
// Mistake: implements fftshift (roll by +m // 2, i.e. source index (i + (m + 1) // 2) % m): identical for even sizes, off by one for odd ones (corner_2d_all and the odd cases fail).
// @kbx launch ifftshift_f32<<<max(1, cdiv(a * b * c, 256)), 256>>>(x, y, a, b, c, sa, sb, sc)

extern "C" __global__ void ifftshift_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
					 long long c, int sa, int sb, int sc)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= a * b * c)
		return;
	long long k = e % c, j = (e / c) % b, i = e / (b * c);
	long long si = sa ? (i + (a + 1) / 2) % a : i;
	long long sj = sb ? (j + (b + 1) / 2) % b : j;
	long long sk = sc ? (k + (c + 1) / 2) % c : k;
	y[e] = x[(si * b + sj) * c + sk];
}
