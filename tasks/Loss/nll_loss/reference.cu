// F.nll_loss(input, target, weight, ignore_index, reduction) for an f32 [n, c] input and i64 targets:
// row i's loss is -w[t] * input[i, t] with t = target[i] and w[t] = weight[t] (1 when weight = None,
// cw = 0); a target equal to ignore_index gives loss 0 and weight 0. reduction: 0 = none (the n
// losses), 1 = mean (sum of losses / sum of the weights of the non-ignored rows: 0 / 0 = NaN when
// every row is ignored), 2 = sum.
//
// nll_rows: grid-stride, one thread per row (coalesced target reads, one gathered input read each).
// With 'none' it writes y and is the only kernel that does work. Otherwise each block reduces its
// (loss, weight) pairs with warp shuffles and shared memory to one f64 partial pair; nll_final (one
// block) adds the P pairs and divides for 'mean'. No atomics.
//
// Precision: -w * x is exact to f32 rounding, the sums are f64: 'mean' and 'sum' are correctly
// rounded. P = max(1, min(cdiv(n, 2048), 1024)) blocks.

// @kbx scratch part f64 [2 * max(1, min(cdiv(n, 2048), 1024))]
// @kbx launch nll_rows<<<max(1, min(cdiv(n, 2048), 1024)), 256>>>(input, target, weight, y, part, n, c, cw, ignore_index, reduction)
// @kbx launch nll_final<<<1, 256>>>(part, y, i64(max(1, min(cdiv(n, 2048), 1024))), reduction)

#define BLOCK 256

// Sums of u and v over the block (blockDim.x == BLOCK); the results are valid in thread 0.
__device__ __forceinline__ void block_sum2(double &u, double &v)
{
	__shared__ double su[BLOCK / 32], sv[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1) {
		u += __shfl_down_sync(0xffffffffu, u, off);
		v += __shfl_down_sync(0xffffffffu, v, off);
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		su[warp] = u;
		sv[warp] = v;
	}
	__syncthreads();
	u = (threadIdx.x < BLOCK / 32) ? su[threadIdx.x] : 0.0;
	v = (threadIdx.x < BLOCK / 32) ? sv[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1) {
			u += __shfl_down_sync(0xffffffffu, u, off);
			v += __shfl_down_sync(0xffffffffu, v, off);
		}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
nll_rows(const float *__restrict__ input, const long long *__restrict__ target, const float *__restrict__ weight,
	 float *__restrict__ y, double *__restrict__ part, long long n, long long c, long long cw,
	 long long ignore_index, int reduction)
{
	double loss_sum = 0.0, w_sum = 0.0;
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK) {
		long long t = target[i];
		float loss = 0.0f, w = 0.0f;
		if (t != ignore_index) {
			w = cw > 0 ? weight[t] : 1.0f;
			loss = -(w * input[i * c + t]);
		}
		if (reduction == 0)
			y[i] = loss;
		loss_sum += (double)loss;
		w_sum += (double)w;
	}
	if (reduction == 0)
		return;
	block_sum2(loss_sum, w_sum);
	if (threadIdx.x == 0) {
		part[2 * blockIdx.x] = loss_sum;
		part[2 * blockIdx.x + 1] = w_sum;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
nll_final(const double *__restrict__ part, float *__restrict__ y, long long chunks, int reduction)
{
	if (reduction == 0)
		return;
	double loss_sum = 0.0, w_sum = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK) {
		loss_sum += part[2 * p];
		w_sum += part[2 * p + 1];
	}
	block_sum2(loss_sum, w_sum);
	if (threadIdx.x == 0)
		y[0] = (float)(reduction == 1 ? loss_sum / w_sum : loss_sum);
}
