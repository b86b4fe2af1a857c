// conv_transpose2d reference: implicit GEMM over stride-parity classes, f32 accumulation.
//
// Output pixel (oy, ox) receives input pixel (iy, ix) through tap (ky, kx) when
// oy + padding - ky * dilation = iy * stride (and likewise in x). Which taps can do that depends
// only on oy mod stride: for the class ry = oy mod stride they are ky = ky0, ky0 + sy, ... with
// sy = stride / gcd(stride, dilation) (the solutions of ky * dilation = ry + padding mod stride;
// none at all for some classes when stride and dilation share a factor). Splitting the output
// into the stride^2 classes therefore turns the transposed convolution into dense GEMMs with no
// wasted products:
//   Y_{g,class} [cout/groups, N] = W_{g,class} [cout/groups, K] @ X_{g,class} [K, N],
//   K = cin/groups * (taps of the class, ordered ci, ky, kx),  N = nb * (class pixels, n, qy, qx).
// Grid: x over pixel tiles of the largest class, y over output-channel tiles of one group, z over
// (group, class); a block past its class's pixel count exits at once. Each 256-thread block
// computes a 64 x 64 tile; k goes 16 at a time through shared memory (taps that fall outside the
// input load as 0), each thread keeps a 4 x 4 register block with a sequential fmaf chain over k,
// then adds the bias. Every output pixel belongs to exactly one class, so each is written once;
// pixels no tap reaches get the bias (or 0).
//
// Accuracy: the f32 sum of the R products reaching an output (one rounding per product-add).
//
// @kbx launch conv_transpose2d_classes<<<dim3(max(1, cdiv(nb * cdiv((h - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1, stride) * cdiv((w - 1) * stride - 2 * padding + dilation * (kw - 1) + output_padding + 1, stride), 64)), max(1, cdiv(cout / groups, 64)), max(1, groups * stride * stride)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, output_padding, dilation, groups, has_bias)

#define BM 64 // output channels per tile
#define BN 64 // output pixels per tile
#define BK 16

// The taps k0, k0 + step, ... (count n) of a kernel of size k that reach outputs of class r.
__device__ __forceinline__ void class_taps(long long r, long long padding, long long dilation, long long stride,
                                           long long k, long long* k0, long long* step, long long* n)
{
	long long a = stride, b = dilation; // gcd(stride, dilation)
	while (b != 0) {
		long long t = a % b;
		a = b;
		b = t;
	}
	const long long s = stride / a;
	const long long target = (r + padding) % stride;
	long long first = -1;
	for (long long t = 0; t < min(k, s); t++)
		if ((t * dilation) % stride == target) {
			first = t;
			break;
		}
	*k0 = first < 0 ? 0 : first;
	*step = s;
	*n = first < 0 ? 0 : (k - 1 - first) / s + 1;
}

extern "C" __global__ void __launch_bounds__(256)
conv_transpose2d_classes(const float* __restrict__ input, const float* __restrict__ weight,
                         const float* __restrict__ bias, float* __restrict__ y, long long nb, long long cin,
                         long long h, long long w, long long cout, long long kh, long long kw, long long stride,
                         long long padding, long long output_padding, long long dilation, long long groups,
                         int has_bias)
{
	__shared__ float Ws[BK][BM + 1]; // Ws[kk][channel], padded against store conflicts
	__shared__ float Xs[BK][BN];     // Xs[kk][pixel]

	const long long OH = (h - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1;
	const long long OW = (w - 1) * stride - 2 * padding + dilation * (kw - 1) + output_padding + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long classes = stride * stride;
	const long long g = blockIdx.z / classes;
	const long long ry = (blockIdx.z % classes) / stride, rx = blockIdx.z % stride;
	const long long OHc = ry < OH ? (OH - ry + stride - 1) / stride : 0; // rows oy = ry + qy * stride
	const long long OWc = rx < OW ? (OW - rx + stride - 1) / stride : 0;
	const long long P = OHc * OWc;
	const long long N = nb * P;
	const long long j0 = (long long)blockIdx.x * BN;
	const long long co0 = (long long)blockIdx.y * BM;
	if (g >= groups || j0 >= N || co0 >= cout_g) // the whole block: no barrier is skipped halfway
		return;

	long long ky0, sy, nky, kx0, sx, nkx;
	class_taps(ry, padding, dilation, stride, kh, &ky0, &sy, &nky);
	class_taps(rx, padding, dilation, stride, kw, &kx0, &sx, &nkx);
	const long long ntap = nky * nkx;
	const long long K = cin_g * ntap;
	const long long khw = kh * kw;
	const float* Wg = weight + g * cin_g * cout_g * khw;

	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;

	// The pixel column this thread loads is fixed for the whole k loop: decompose it once.
	const int jj = tid % BN;
	const long long jl = j0 + jj;
	const bool j_ok = jl < N;
	long long by = 0, bx = 0; // oy + padding, ox + padding
	const float* xin = input;
	if (j_ok) {
		long long img = jl / P, rem = jl % P;
		by = ry + (rem / OWc) * stride + padding;
		bx = rx + (rem % OWc) * stride + padding;
		xin = input + (img * cin + g * cin_g) * h * w;
	}

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < K; k0 += BK) {
		// weight tile: 64 channels x 16 k, consecutive threads along k
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r;
			int row = idx / BK, kk = idx % BK;
			long long co = co0 + row, kg = k0 + kk;
			float v = 0.0f;
			if (co < cout_g && kg < K) {
				long long ci = kg / ntap, t = kg % ntap;
				long long ky = ky0 + (t / nkx) * sy, kx = kx0 + (t % nkx) * sx;
				v = Wg[(ci * cout_g + co) * khw + ky * kw + kx];
			}
			Ws[kk][row] = v;
		}
		// gathered input tile: 16 k x 64 pixels, consecutive threads along pixels
		for (int r = 0; r < 4; r++) {
			int kk = tid / BN + 4 * r;
			long long kg = k0 + kk;
			float v = 0.0f;
			if (j_ok && kg < K) {
				long long ci = kg / ntap, t = kg % ntap;
				long long ny = by - (ky0 + (t / nkx) * sy) * dilation; // = iy * stride when >= 0
				long long nx = bx - (kx0 + (t % nkx) * sx) * dilation;
				if (ny >= 0 && nx >= 0) {
					long long iy = ny / stride, ix = nx / stride;
					if (iy < h && ix < w)
						v = xin[(ci * h + iy) * w + ix];
				}
			}
			Xs[kk][jj] = v;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float wv[4], xv[4];
			for (int i = 0; i < 4; i++)
				wv[i] = Ws[kk][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				xv[j] = Xs[kk][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(wv[i], xv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int j = 0; j < 4; j++) {
		long long jo = j0 + tx + 16 * j;
		if (jo >= N)
			continue;
		long long img = jo / P, rem = jo % P;
		long long oy = ry + (rem / OWc) * stride, ox = rx + (rem % OWc) * stride;
		for (int i = 0; i < 4; i++) {
			long long co = co0 + ty + 16 * i;
			if (co >= cout_g)
				continue;
			long long c = g * cout_g + co;
			float v = acc[i][j];
			if (has_bias)
				v += bias[c];
			y[((img * cout + c) * OH + oy) * OW + ox] = v;
		}
	}
}
