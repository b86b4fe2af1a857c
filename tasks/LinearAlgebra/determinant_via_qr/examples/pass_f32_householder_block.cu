// @kbx expect pass
// @kbx perf_expect timeout: one block factors the whole matrix; on the H200, alone, its launch at
// n = 4096 (perf row 9) ran past kbx's 10 s limit (bench/perf_check.py, issue 22); its cases and
// the rows below pass
// Correct alternative: Householder QR in f32 by one block (LAPACK's reflector convention), on a
// transposed copy so that columns are contiguous; det = prod(R[j, j]) times -1 for every
// nontrivial reflector (det of a Householder reflector), in f32 like PyTorch.
//
// @kbx scratch w f32 [max(1, 2 * n * n + 4 * n)]
// @kbx launch det_qr_f32<<<1, 256>>>(a, d, w, n, mode)

extern "C" __global__ void __launch_bounds__(256)
det_qr_f32(const float* __restrict__ a, float* __restrict__ d, float* __restrict__ w, long long n, int mode)
{
	__shared__ float red[8];
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	float* wt = w; // wt[c][r] = a[r][c]
	for (long long e = tid; e < n * n; e += 256)
		wt[(e % n) * n + e / n] = a[e];
	__syncthreads();
	float det = 1.0f;
	for (long long j = 0; j < n; j++) {
		const float* x = wt + j * n;
		float ss = 0.0f;
		for (long long i = j + 1 + tid; i < n; i += 256)
			ss += x[i] * x[i];
		for (int off = 16; off > 0; off >>= 1)
			ss += __shfl_xor_sync(0xffffffffu, ss, off);
		if (lane == 0)
			red[warp] = ss;
		__syncthreads();
		ss = 0.0f;
		for (int q = 0; q < 8; q++)
			ss += red[q];
		__syncthreads();
		const float alpha = x[j];
		float t = 0.0f, sc = 0.0f, bt = alpha;
		if (ss > 0.0f) {
			const float nrm = sqrtf(alpha * alpha + ss);
			bt = alpha >= 0.0f ? -nrm : nrm;
			t = (bt - alpha) / bt;
			sc = 1.0f / (alpha - bt);
		}
		det *= (t != 0.0f) ? -bt : bt; // REFLECTOR_SIGN
		if (t != 0.0f)
			for (long long c = j + 1 + warp; c < n; c += 8) {
				float* col = wt + c * n;
				const float cj = col[j];
				float dd = 0.0f;
				for (long long i = j + 1 + lane; i < n; i += 32)
					dd += x[i] * col[i];
				for (int off = 16; off > 0; off >>= 1)
					dd += __shfl_xor_sync(0xffffffffu, dd, off);
				dd = t * (cj + sc * dd);
				if (lane == 0)
					col[j] -= dd;
				for (long long i = j + 1 + lane; i < n; i += 32)
					col[i] -= dd * sc * x[i];
			}
		__syncthreads();
	}
	if (tid == 0)
		d[0] = det;
}
