// @kbx expect pass
// @kbx perf_expect timeout: one block factors the whole matrix; on the H200, alone, its launch at n = 4096
// (perf row 9) ran past kbx's 10 s limit (bench/perf_check.py, issue 22); its cases and the rows
// below pass
// Correct alternative: Householder QR in f32, one block per matrix (the reference's steps with
// block barriers instead of grid barriers and f32 arithmetic, like PyTorch's sgeqrf / sorgqr).
//
// @kbx scratch wt f32 [max(1, batch * m * n)]
// @kbx scratch y f32 [max(1, batch * m * m)]
// @kbx scratch aux f32 [max(1, batch * 3 * min(m, n))]
// @kbx launch qr_f32<<<max(1, batch), 256>>>(a, q, r, wt, y, aux, batch, m, n, mode)

#define THREADS 256
#define FULL 0xffffffffu

// Sum over the block; every thread gets it. s has THREADS / 32 slots; ends with a barrier.
__device__ float block_sum(float v, float* s)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(FULL, v, off);
	if (threadIdx.x % 32 == 0)
		s[threadIdx.x / 32] = v;
	__syncthreads();
	float t = 0.0;
	for (int q = 0; q < THREADS / 32; q++)
		t += s[q];
	__syncthreads();
	return t;
}

extern "C" __global__ void __launch_bounds__(THREADS)
qr_f32(const float* __restrict__ a, float* __restrict__ q, float* __restrict__ r, float* __restrict__ wt0,
       float* __restrict__ y0, float* __restrict__ aux0, long long batch, long long m, long long n, int mode)
{
	__shared__ float s_red[THREADS / 32];
	const int lane = threadIdx.x % 32;
	const long long gtid = threadIdx.x, gstride = THREADS; // one block per matrix
	const long long gwarp = gtid / 32, nwarps = gstride / 32;
	const long long k = m < n ? m : n;
	const long long qc = mode ? m : k; // columns of Q, rows of R
	const long long bi = blockIdx.x;
	if (bi >= batch)
		return;
	float* wt = wt0 + bi * m * n;
	float* y = y0 + bi * m * m;
	float* aux = aux0 + bi * 3 * k;
	float* tau = aux;
	float* scal = aux + k;
	float* beta = aux + 2 * k;
	{
		const float* A = a + bi * m * n;
		for (long long e = gtid; e < m * n; e += gstride)
			wt[(e % n) * m + e / n] = (float)A[e];
		__syncthreads();
		for (long long j = 0; j < k; j++) {
			const float* x = wt + j * m; // column j of A
			float ss = 0.0;
			for (long long i = j + 1 + threadIdx.x; i < m; i += THREADS)
				ss += x[i] * x[i];
			ss = block_sum(ss, s_red);
			const float alpha = x[j];
			float t = 0.0, sc = 0.0, bt = alpha;
			if (ss > 0.0) {
				const float nrm = sqrtf(alpha * alpha + ss);
				bt = alpha >= 0.0 ? -nrm : nrm;
				t = (bt - alpha) / bt;
				sc = 1.0 / (alpha - bt);
			}
			if (gtid == 0) {
				tau[j] = t;
				scal[j] = sc;
				beta[j] = bt;
			}
			if (t != 0.0)
				for (long long c = j + 1 + gwarp; c < n; c += nwarps) {
					float* col = wt + c * m;
					const float cj = col[j]; // read by every lane before lane 0 rewrites it
					float d = 0.0;
					for (long long i = j + 1 + lane; i < m; i += 32)
						d += x[i] * col[i];
					for (int off = 16; off > 0; off >>= 1)
						d += __shfl_xor_sync(FULL, d, off);
					d = t * (cj + sc * d); // tau * v^T col
					if (lane == 0)
						col[j] -= d;
					for (long long i = j + 1 + lane; i < m; i += 32)
						col[i] -= d * sc * x[i];
				}
			__syncthreads();
		}
		// Q^T accumulated in y [qc][m]: rows of the identity, then H_j from the last to the first
		for (long long e = gtid; e < qc * m; e += gstride)
			y[e] = (e / m == e % m) ? 1.0 : 0.0;
		__syncthreads();
		for (long long j = k - 1; j >= 0; j--) {
			const float t = tau[j], sc = scal[j];
			const float* x = wt + j * m;
			if (t != 0.0)
				for (long long c = j + gwarp; c < qc; c += nwarps) {
					float* row = y + c * m;
					const float rj = row[j];
					float d = 0.0;
					for (long long i = j + 1 + lane; i < m; i += 32)
						d += x[i] * row[i];
					for (int off = 16; off > 0; off >>= 1)
						d += __shfl_xor_sync(FULL, d, off);
					d = t * (rj + sc * d);
					if (lane == 0)
						row[j] -= d;
					for (long long i = j + 1 + lane; i < m; i += 32)
						row[i] -= d * sc * x[i];
				}
			__syncthreads();
		}
		float* Q = q + bi * m * qc;
		float* R = r + bi * qc * n;
		for (long long e = gtid; e < m * qc; e += gstride) {
			const long long i = e / qc, c = e % qc;
			const float s = (c < k && beta[c] < 0.0) ? -1.0 : 1.0;
			Q[e] = (float)(s * y[c * m + i]);
		}
		for (long long e = gtid; e < qc * n; e += gstride) {
			const long long i = e / n, c = e % n;
			float v = 0.0;
			if (i < k && c >= i)
				v = (c == i) ? beta[i] : wt[c * m + i];
			if (i < k && beta[i] < 0.0)
				v = -v;
			R[e] = (float)v;
		}
	}
}
