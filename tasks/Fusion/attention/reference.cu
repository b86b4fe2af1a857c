// attention reference: the PyTorch stages of the KernelBenchX function, each into its own buffer.
//   stage `matmul`  (torch.matmul(q, k^T)):       matmul[z, i, j] = sum_d q[z, i, d] * k[z, j, d]
//   stage `softmax` (* softmax_scale, masked_fill, F.softmax(dim=-1)):
//                    t_j = matmul[z, i, j] * scale (rounded to f32, as the eager multiply does),
//                    t_j = -inf where causal and j > i, softmax[z, i, j] = exp(t_j - max) / sum
//   stage output    (torch.matmul(attn, v)):       y[z, i, e] = sum_j softmax[z, i, j] * v[z, j, e]
// z runs over the b * h (batch, head) pairs. The scale multiply and the mask are elementwise and
// are applied where the softmax stage reads its row, so they have no buffer of their own.
// Keeping the [b*h, s, s] score and probability matrices in memory costs two extra passes over
// s * s floats per head; that is the price of a reference whose stages can be diffed one by one.
//
// Accuracy: both products are f32 fmaf chains in k order, like cuBLAS SGEMM (PyTorch does not
// use TF32 for f32 matmul by default); the softmax takes the row maximum, sums exp in f64 and
// divides exp(t - max) by the f32-rounded sum, like PyTorch's softmax kernels (which sum in f32:
// the f64 sum only removes their rounding noise). Expected difference to PyTorch: a few ulp of
// each score, i.e. relative ~1e-6 on the output, well inside rtol = atol = 1e-5.
// Masked probabilities are exact zeros and the second product still multiplies them with v
// (a dense matmul, 0 * inf = NaN), exactly as PyTorch does.
//
// @kbx scratch matmul f32 [b * h, s, s]
// @kbx scratch softmax f32 [b * h, s, s]
// @kbx launch bmm_tiled<<<dim3(max(1, cdiv(s, 64)), max(1, cdiv(s, 64)), max(1, b * h)), 256>>>(q, k, matmul, i64(b * h), s, s, d, i64(s * d), d, i64(1), i64(s * d), i64(1), d)
// @kbx launch softmax_rows<<<max(1, min(b * h * s, 1048576)), 256>>>(matmul, softmax, i64(b * h * s), s, scale, causal)
// @kbx launch bmm_tiled<<<dim3(max(1, cdiv(d, 64)), max(1, cdiv(s, 64)), max(1, b * h)), 256>>>(softmax, v, y, i64(b * h), s, d, s, i64(s * s), s, i64(1), i64(s * d), d, i64(1))

#define BM 64
#define BN 64
#define BK 16
#define NEG_INF __int_as_float(0xff800000)

// c[z, i, j] = sum_kk A(z, i, kk) * B(z, kk, j), c contiguous [batch, m, n];
// A(z, i, kk) = a[z * sAz + i * sAi + kk * sAk], B(z, kk, j) = b[z * sBz + kk * sBk + j * sBj].
// A 256-thread block computes a 64 x 64 tile of c with a 4 x 4 register block per thread and walks
// kk in slices of 16 through shared memory. Tile loads put consecutive threads along whichever
// index has unit stride (coalesced for q, k^T, softmax and v alike); out-of-range elements load as 0.
extern "C" __global__ void __launch_bounds__(256)
bmm_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long batch,
          long long m, long long n, long long kdim, long long sAz, long long sAi, long long sAk, long long sBz,
          long long sBk, long long sBj)
{
	__shared__ float As[BK][BM + 1];
	__shared__ float Bs[BK][BN + 1];
	const long long z = blockIdx.z;
	if (z >= batch)
		return;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM;
	const long long col0 = (long long)blockIdx.x * BN;
	const float* A = a + z * sAz;
	const float* B = b + z * sBz;
	float* C = c + z * m * n;

	float acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long k0 = 0; k0 < kdim; k0 += BK) {
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r, row, kk;
			if (sAk == 1) {
				row = idx / BK;
				kk = idx % BK;
			} else {
				row = idx % BM;
				kk = idx / BM;
			}
			long long gr = row0 + row, gk = k0 + kk;
			As[kk][row] = (gr < m && gk < kdim) ? A[gr * sAi + gk * sAk] : 0.0f;
		}
		for (int r = 0; r < 4; r++) {
			int idx = tid + 256 * r, col, kk;
			if (sBj == 1) {
				col = idx % BN;
				kk = idx / BN;
			} else {
				col = idx / BK;
				kk = idx % BK;
			}
			long long gk = k0 + kk, gc = col0 + col;
			Bs[kk][col] = (gk < kdim && gc < n) ? B[gk * sBk + gc * sBj] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float av[4], bv[4];
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				bv[j] = Bs[kk][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long gr = row0 + ty + 16 * i;
		if (gr >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long gc = col0 + tx + 16 * j;
			if (gc < n)
				C[gr * n + gc] = acc[i][j];
		}
	}
}

// Block-wide reductions for blockDim.x == 256; every thread gets the result.
static __device__ float block_max(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	v = sh[0];
	for (int w = 1; w < 8; w++)
		v = fmaxf(v, sh[w]);
	__syncthreads();
	return v;
}

static __device__ double block_sum(double v, double* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	v = 0.0;
	for (int w = 0; w < 8; w++)
		v += sh[w];
	__syncthreads();
	return v;
}

// One block per row (z, i) of the [b*h*s, s] score matrix, grid-stride over rows.
// fmaxf ignores NaN, but a NaN score still turns exp(t - max), the sum and the whole row into NaN,
// as in PyTorch; a row whose maximum is +inf gives exp(inf - inf) = NaN the same way.
extern "C" __global__ void __launch_bounds__(256)
softmax_rows(const float* __restrict__ matmul, float* __restrict__ softmax, long long rows, long long s,
             float scale, int causal)
{
	__shared__ float shm[8];
	__shared__ double shs[8];
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		const long long i = r % s; // query position
		const float* in = matmul + r * s;
		float* out = softmax + r * s;
		const long long valid = causal ? i + 1 : s; // keys j < valid are not masked
		float m = NEG_INF;
		for (long long j = threadIdx.x; j < valid; j += 256)
			m = fmaxf(m, __fmul_rn(in[j], scale));
		m = block_max(m, shm);
		double sum = 0.0;
		for (long long j = threadIdx.x; j < valid; j += 256)
			sum += (double)expf(__fmul_rn(in[j], scale) - m);
		float sumf = (float)block_sum(sum, shs);
		// masked entries are exp(-inf - max) / sum: 0, or NaN when the row's sum is NaN (as in PyTorch)
		for (long long j = threadIdx.x; j < s; j += 256)
			out[j] = expf((j < valid ? __fmul_rn(in[j], scale) : NEG_INF) - m) / sumf;
	}
}
