// @kbx expect pass
// Correct alternative: a scatter instead of a gather: each thread reads x[i, j, k] (coalesced) and writes it
// to y at ((i - h) mod m) per selected dim, written as (i + m - h) % m.
// @kbx launch ifftshift_f32<<<max(1, cdiv(a * b * c, 256)), 256>>>(x, y, a, b, c, sa, sb, sc)

extern "C" __global__ void ifftshift_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
					 long long c, int sa, int sb, int sc)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= a * b * c)
		return;
	long long k = e % c, j = (e / c) % b, i = e / (b * c);
	long long di = sa ? (i + a - a / 2) % a : i;
	long long dj = sb ? (j + b - b / 2) % b : j;
	long long dk = sc ? (k + c - c / 2) % c : k;
	y[(di * b + dj) * c + dk] = x[e];
}
