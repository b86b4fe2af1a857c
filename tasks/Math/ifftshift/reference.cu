// ifftshift of the view x[a, b, c]: y[i, j, k] = x[(i + ha) % a, (j + hb) % b, (k + hc) % c] with
// h = m / 2 on a selected dim of size m and 0 otherwise. A pure gather, memory-bound.
// When c and hc are multiples of 4, the four outputs y[i, j, 4t .. 4t + 3] come from four consecutive
// inputs that do not wrap (k + hc stays in one 4-aligned group), so both sides move as float4: the perf
// workload (1-D, c = 2^k) takes this path, a grid-stride loop with four groups per thread. Otherwise one
// element per step. Grid: cdiv(numel, 4096) blocks of 256 cover the float4 path in one sweep.

// @kbx launch ifftshift_f32<<<max(1, cdiv(a * b * c, 4096)), 256>>>(x, y, a, b, c, sa, sb, sc)

extern "C" __global__ void ifftshift_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
					 long long c, int sa, int sb, int sc)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long ha = sa ? a / 2 : 0, hb = sb ? b / 2 : 0, hc = sc ? c / 2 : 0;
	long long rows = a * b;

	if (c % 4 == 0 && hc % 4 == 0) {
		long long c4 = c / 4, h4 = hc / 4;
		long long total = rows * c4;
		const float4 *x4 = reinterpret_cast<const float4 *>(x);
		float4 *y4 = reinterpret_cast<float4 *>(y);
		for (long long v = tid; v < total; v += stride) {
			long long row = v / c4, t = v - row * c4;
			long long i = row / b, j = row - i * b;
			long long si = i + ha, sj = j + hb, st = t + h4;
			si -= si >= a ? a : 0;
			sj -= sj >= b ? b : 0;
			st -= st >= c4 ? c4 : 0;
			y4[v] = x4[(si * b + sj) * c4 + st];
		}
		return;
	}
	long long total = rows * c;
	for (long long e = tid; e < total; e += stride) {
		long long row = e / c, k = e - row * c;
		long long i = row / b, j = row - i * b;
		long long si = i + ha, sj = j + hb, sk = k + hc;
		si -= si >= a ? a : 0;
		sj -= sj >= b ? b : 0;
		sk -= sk >= c ? c : 0;
		y[e] = x[(si * b + sj) * c + sk];
	}
}
