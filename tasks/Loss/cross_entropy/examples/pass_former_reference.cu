// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// F.cross_entropy(input, target, weight, ignore_index, reduction) = nll_loss(log_softmax(input, 1), ...)
// for an f32 input viewed as [n, c, s] (s = the product of the spatial dims d1..dk, 1 for a 2-D input)
// and i64 targets [n, s]. Position (i, q) with t = target[i, q] != ignore_index has
//   loss = -w[t] * ((x[i, t, q] - mx) - log(sum_k exp(x[i, k, q] - mx))),  mx = max_k x[i, k, q],
// w[t] = weight[t] (1 when cw = 0); an ignored position has loss 0 and weight 0. reduction: 0 = none
// (the n * s losses), 1 = mean (sum of losses / sum of the weights of the non-ignored positions), 2 = sum.
//
// ce_rows: one warp per position (8 per block, grid-stride over the n * s positions); the warp reads the
// c logits of its position (consecutive lanes take consecutive classes: coalesced when s = 1) once for
// the max and once more (from L1/L2) for the sum of exponentials. With 'none' it writes y and is the
// only kernel that does work; otherwise each block reduces its (loss, weight) pairs to one f64 pair
// and ce_final (one block) adds the P pairs and divides for 'mean'. No atomics.
//
// Precision: max and x - mx in f32 as PyTorch's log_softmax; expf of each f32 difference summed in f64,
// the log and the loss in f64, rounded to f32 once: within a few f32 ulps of PyTorch's f32 log_softmax
// (which sums the exponentials in f32), far inside 1e-5. Special values follow the same formula: a +inf
// logit gives inf - inf = NaN for the whole position, a NaN logit NaN, a -inf logit at the target an
// infinite loss; a position whose logits are all -inf gives NaN.
//
// P = max(1, min(cdiv(n * s, 64), 2048)) blocks.

// @kbx scratch part f64 [2 * max(1, min(cdiv(n * s, 64), 2048))]
// @kbx launch ce_rows<<<max(1, min(cdiv(n * s, 64), 2048)), 256>>>(input, target, weight, y, part, n, c, s, cw, ignore_index, reduction)
// @kbx launch ce_final<<<1, 256>>>(part, y, i64(max(1, min(cdiv(n * s, 64), 2048))), reduction)

#define BLOCK 256
#define WARPS (BLOCK / 32)

// Sums of u and v over the block (blockDim.x == BLOCK); the results are valid in thread 0.
__device__ __forceinline__ void block_sum2(double &u, double &v)
{
	__shared__ double su[WARPS], sv[WARPS];
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
	u = (threadIdx.x < WARPS) ? su[threadIdx.x] : 0.0;
	v = (threadIdx.x < WARPS) ? sv[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1) {
			u += __shfl_down_sync(0xffffffffu, u, off);
			v += __shfl_down_sync(0xffffffffu, v, off);
		}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
ce_rows(const float *__restrict__ input, const long long *__restrict__ target, const float *__restrict__ weight,
	float *__restrict__ y, double *__restrict__ part, long long n, long long c, long long s, long long cw,
	long long ignore_index, int reduction)
{
	int lane = threadIdx.x & 31;
	long long positions = n * s;
	double loss_sum = 0.0, w_sum = 0.0; /* lane 0's running sums */

	for (long long pos = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5); pos < positions;
	     pos += (long long)gridDim.x * WARPS) {
		long long i = pos / s, q = pos % s;
		long long t = target[pos];
		if (t == ignore_index) {
			if (reduction == 0 && lane == 0)
				y[pos] = 0.0f;
			continue;
		}
		const float *row = input + i * c * s + q; /* &x[i, 0, q], classes s apart */
		float mx = -__int_as_float(0x7f800000);
		for (long long k = lane; k < c; k += 32) {
			float v = row[k * s];
			mx = (v > mx || v != v) ? v : mx; /* NaN sticks, as PyTorch's max */
		}
		for (int off = 16; off > 0; off >>= 1) {
			float o = __shfl_xor_sync(0xffffffffu, mx, off);
			mx = (o > mx || o != o) ? o : mx;
		}
		double sum = 0.0;
		for (long long k = lane; k < c; k += 32)
			sum += (double)expf(row[k * s] - mx);
		for (int off = 16; off > 0; off >>= 1)
			sum += __shfl_xor_sync(0xffffffffu, sum, off);
		if (lane == 0) {
			double w = cw > 0 ? (double)weight[t] : 1.0;
			double logp = (double)(row[t * s] - mx) - log(sum);
			double loss = -(w * logp);
			if (reduction == 0)
				y[pos] = (float)loss;
			loss_sum += loss;
			w_sum += w;
		}
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
ce_final(const double *__restrict__ part, float *__restrict__ y, long long chunks, int reduction)
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
