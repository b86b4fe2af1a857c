// fused_tanh_linear reference: the three PyTorch steps, each into its own buffer.
//   stage `matmul` (torch.matmul(input, weight.t())): a tiled f32 GEMM, rounded to f32
//   stage `add`    (output += bias):                    add = matmul + bias (a copy when bias=None)
//   stage `tanh`   (torch.tanh):                        y = tanhf(add)
// Writing `matmul` and `add` out and reading them back costs two small extra passes next to the
// GEMM: the price of a reference whose stages can be diffed.
//
// Accuracy: sequential f32 fmaf chains over k; for the randn cases (k <= 128) ~1e-6 from exact, for
// the long perf rows (small weights) ~1e-6 too; tanhf is within 2 ulp.
//
// @kbx scratch matmul f32 [bsz, n]
// @kbx scratch add f32 [bsz, n]
// @kbx launch sgemm128<<<dim3(max(1, cdiv(n, 128)), max(1, cdiv(bsz, 128))), 256>>>(input, weight, matmul, bsz, n, k, k, i64(1), i64(1), k)
// @kbx launch add_bias<<<max(1, min(cdiv(bsz * n, 256), 65536)), 256>>>(matmul, bias, add, i64(bsz * n), n, has_bias)
// @kbx launch tanh_k<<<max(1, min(cdiv(bsz * n, 256), 65536)), 256>>>(add, y, i64(bsz * n))

// C[M, N] (row-major) = A @ B with A(m, k) = a[m * sam + k * sak], B(k, n) = b[k * sbk + n * sbn]:
// a 256-thread block computes a 128 x 128 tile of C, staging k through shared memory 8 at a time;
// each thread accumulates an 8 x 8 register block (rows ty + 16 i, columns tx + 16 j) with a
// sequential fmaf chain over k (f32, no TF32). Tile loads walk whichever axis of A / B has unit
// stride, so they are coalesced for either layout; out-of-range elements load as 0.
#define GT 128
#define GK 8

extern "C" __global__ void __launch_bounds__(256)
sgemm128(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long M, long long N,
         long long K, long long sam, long long sak, long long sbk, long long sbn)
{
	__shared__ float As[GK][GT + 4];
	__shared__ float Bs[GK][GT + 4];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long m0 = (long long)blockIdx.y * GT, n0 = (long long)blockIdx.x * GT;
	float acc[8][8];
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;
	for (long long k0 = 0; k0 < K; k0 += GK) {
		for (int e = tid; e < GT * GK; e += 256) {
			int r, kk;
			if (sak == 1) {
				kk = e % GK;
				r = e / GK;
			} else {
				r = e % GT;
				kk = e / GT;
			}
			const long long m = m0 + r, k = k0 + kk;
			As[kk][r] = (m < M && k < K) ? a[m * sam + k * sak] : 0.0f;
		}
		for (int e = tid; e < GT * GK; e += 256) {
			int col, kk;
			if (sbn == 1) {
				col = e % GT;
				kk = e / GT;
			} else {
				kk = e % GK;
				col = e / GK;
			}
			const long long n = n0 + col, k = k0 + kk;
			Bs[kk][col] = (n < N && k < K) ? b[k * sbk + n * sbn] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < GK; kk++) {
			float av[8], bv[8];
			for (int i = 0; i < 8; i++)
				av[i] = As[kk][ty + 16 * i];
			for (int j = 0; j < 8; j++)
				bv[j] = Bs[kk][tx + 16 * j];
			for (int i = 0; i < 8; i++)
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 8; i++) {
		const long long m = m0 + ty + 16 * i;
		if (m >= M)
			continue;
		for (int j = 0; j < 8; j++) {
			const long long n = n0 + tx + 16 * j;
			if (n < N)
				c[m * N + n] = acc[i][j];
		}
	}
}

extern "C" __global__ void __launch_bounds__(256)
add_bias(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out, long long total,
         long long n, int has_bias)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
		out[i] = has_bias ? __fadd_rn(x[i], bias[i % n]) : x[i];
}

extern "C" __global__ void __launch_bounds__(256)
tanh_k(const float* __restrict__ x, float* __restrict__ y, long long total)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
		y[i] = tanhf(x[i]);
}
