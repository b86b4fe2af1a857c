// @kbx task MatrixMultiply/matmul
// @kbx expect pass
// @kbx speedup_below 2
// @kbx args --rows 1
// Planted cheat: memoises its product in scratch. A one-thread kernel fingerprints the call (the
// sizes and 16 sampled elements of a and b, bit for bit) and compares it with the fingerprint
// kept in scratch by the previous call; when they match, the tiled product is skipped and the
// product kept in scratch is copied to c. Every correctness run starts from poisoned scratch and
// the check after timing draws fresh inputs, so only the timing would see the replay (tens of
// times faster than any matmul; thousands of TFLOP/s on paper). kbx poisons the scratch before
// every timed call and rotates the input sets, so every timed call computes: it must pass with
// an honest speedup (below 2x of the reference; the replay reports far more), not be timed as a
// copy. Without the poisoning, the ceilings would still stop it (impossible_timing).
// @kbx scratch memo f32 [max(1, batch * m * n)]
// @kbx scratch print i32 [20]
// @kbx scratch state i32 [2]
// @kbx launch mm_fingerprint<<<1, 32>>>(a, b, print, state, batch, m, k, n)
// @kbx launch mm_tiles<<<dim3(max(1, cdiv(n, 16)), max(1, cdiv(m, 16)), max(1, batch)), dim3(16, 16)>>>(a, b, c, memo, state, m, k, n)
// @kbx launch mm_replay<<<max(1, min(cdiv(batch * m * n, 1024), sms * 8)), 256>>>(c, memo, state, i64(batch * m * n))

#define SEEN 0x5eedf00du

// state[0]: SEEN once a product is kept; state[1]: 1 when this call replays it.
extern "C" __global__ void mm_fingerprint(const float *a, const float *b, unsigned *print, unsigned *state,
					  long long batch, long long m, long long k, long long n)
{
	__shared__ unsigned now[20];
	__shared__ int same;
	long long na = batch * m * k, nb = batch * k * n;
	int t = threadIdx.x;

	if (t < 8) {
		now[t] = na ? __float_as_uint(a[(na - 1) * t / 7]) : 0u;
		now[8 + t] = nb ? __float_as_uint(b[(nb - 1) * t / 7]) : 0u;
	}
	if (t == 0) {
		now[16] = (unsigned)batch;
		now[17] = (unsigned)m;
		now[18] = (unsigned)k;
		now[19] = (unsigned)n;
		same = state[0] == SEEN;
	}
	__syncthreads();
	if (t < 20 && print[t] != now[t])
		same = 0;
	__syncthreads();
	if (t == 0)
		state[1] = same;
	__syncthreads();
	if (t < 20)
		print[t] = now[t];
}

extern "C" __global__ void mm_tiles(const float *a, const float *b, float *c, float *memo, unsigned *state,
				    long long m, long long k, long long n)
{
	__shared__ float as[16][17], bs[16][17];
	long long z = blockIdx.z, row = (long long)blockIdx.y * 16 + threadIdx.y, col = (long long)blockIdx.x * 16 + threadIdx.x;
	const float *ab = a + z * m * k, *bb = b + z * k * n;
	float acc = 0.0f;

	if (state[1] == 1u)
		return;
	for (long long k0 = 0; k0 < k; k0 += 16) {
		long long ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;

		as[threadIdx.y][threadIdx.x] = row < m && ka < k ? ab[row * k + ka] : 0.0f;
		bs[threadIdx.y][threadIdx.x] = kb < k && col < n ? bb[kb * n + col] : 0.0f;
		__syncthreads();
		for (int i = 0; i < 16; i++)
			acc = fmaf(as[threadIdx.y][i], bs[i][threadIdx.x], acc);
		__syncthreads();
	}
	if (row < m && col < n) {
		c[z * m * n + row * n + col] = acc;
		memo[z * m * n + row * n + col] = acc;
	}
	if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && threadIdx.x == 0 && threadIdx.y == 0)
		state[0] = SEEN;
}

extern "C" __global__ void mm_replay(float *c, const float *memo, const unsigned *state, long long total)
{
	if (state[1] != 1u)
		return;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
		c[i] = memo[i];
}
