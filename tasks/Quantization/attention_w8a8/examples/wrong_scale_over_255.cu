// @kbx expect wrong
// Mistake: the reference's scheme (per-token scales for Q with 1/sqrt(d) folded in, K and V,
// int8 clamped to [-127, 127], int32 scores) with the scale taken over the whole 8-bit range, as
// for uint8: scale = max|v| / 255 instead of max|v| / 127. The clamp still stops at 127, so every
// value above about half of its row's max |v| saturates at 127 * max|v| / 255 ~ 0.5 * max|v|:
// the large entries of every query, key and value row are cut to half, which flattens the scores
// and shrinks the output. A numpy model of both (20 seeds per case) fails every case: l1_relative
// 0.49 to 0.55 on random_standard_2x64x32 (threshold 0.1), rmse 0.30 to 0.95 and cosine 0.60 to
// 0.77 on random_outlier_2x64x32 (thresholds 0.15 and 0.9), l1_relative >= 0.18 and rmse >= 0.21
// on the first case, corner_single_token. The scales are kept under the reference's names, each
// 127 / 255 of the reference's (l1_relative 0.5), so the first wrong stage reported should be
// `q_scale`.
// The stage diff sees every q_scale 127/255 of the reference's: the diagnosis should say
// `(127/255)`.
//
// @kbx scratch q_scale f32 [b, s]
// @kbx scratch k_scale f32 [b, s]
// @kbx scratch v_scale f32 [b, s]
// @kbx scratch q_q i8 [b, s, d]
// @kbx scratch k_q i8 [b, s, d]
// @kbx scratch v_q i8 [b, s, d]
// @kbx scratch scores f32 [b, s, s]
// @kbx scratch probs f32 [b, s, s]
// @kbx launch quant_rows<<<max(1, cdiv(b * s, 8)), 256>>>(query, q_q, q_scale, i64(b * s), d, i32(1))
// @kbx launch quant_rows<<<max(1, cdiv(b * s, 8)), 256>>>(key, k_q, k_scale, i64(b * s), d, i32(0))
// @kbx launch quant_rows<<<max(1, cdiv(b * s, 8)), 256>>>(value, v_q, v_scale, i64(b * s), d, i32(0))
// @kbx launch scores_i8<<<dim3(max(1, cdiv(s, 64)), max(1, cdiv(s, 64)), max(1, b)), 256>>>(q_q, k_q, q_scale, k_scale, scores, b, s, d)
// @kbx launch softmax_rows<<<max(1, b * s), 256>>>(scores, probs, i64(b * s), s)
// @kbx launch pv_f32<<<dim3(max(1, cdiv(d, 64)), max(1, cdiv(s, 32)), max(1, b)), 256>>>(probs, v_q, v_scale, out, b, s, d)

// One warp per row of d values (8 rows per 256-thread block), lanes along the row (coalesced).
// fold_rsqrt_d = 1 multiplies the row by 1/sqrt(d) before it is quantized (the query).
extern "C" __global__ void __launch_bounds__(256)
quant_rows(const float* __restrict__ x, signed char* __restrict__ xq, float* __restrict__ xs,
           long long rows, long long d, int fold_rsqrt_d)
{
	const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	const float factor = fold_rsqrt_d ? 1.0f / sqrtf((float)d) : 1.0f;
	const float* xr = x + row * d;
	float amax = 0.0f;
	for (long long j = lane; j < d; j += 32)
		amax = fmaxf(amax, fabsf(xr[j] * factor));
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	const float scale = amax / 255.0f;   /* the mistake: the 8-bit range of uint8, not 127 */
	if (lane == 0)
		xs[row] = scale;
	for (long long j = lane; j < d; j += 32) {
		signed char q = 0;
		if (scale > 0.0f)
			q = (signed char)(int)fminf(fmaxf(rintf(xr[j] * factor / scale), -127.0f), 127.0f);
		xq[row * d + j] = q;
	}
}

// Four consecutive int8 of a row of d, packed little-endian into one int for __dp4a; zero past d.
static __device__ __forceinline__ int load4(const signed char* __restrict__ p, long long kk, long long d)
{
	if ((d & 3) == 0)
		return kk < d ? *reinterpret_cast<const int*>(p + kk) : 0;
	unsigned int word = 0;
	for (int e = 0; e < 4; e++)
		if (kk + e < d)
			word |= (unsigned int)(unsigned char)p[kk + e] << (8 * e);
	return (int)word;
}

// scores[b, i, j] for a 64 x 64 tile (i: query rows, j: key rows) per 256-thread block. Both
// operands are contiguous along d: slices of 32 d staged in shared memory as packed words of 4;
// 4 x 4 scores per thread, each an int32 accumulator fed by __dp4a.
extern "C" __global__ void __launch_bounds__(256)
scores_i8(const signed char* __restrict__ qq, const signed char* __restrict__ kq,
          const float* __restrict__ q_scale, const float* __restrict__ k_scale,
          float* __restrict__ scores, long long b, long long s, long long d)
{
	__shared__ int Qs[8][68]; // Qs[d word][query], padded: the stores (4 rows x 8 words per warp) hit 32 banks
	__shared__ int Ks[8][68]; // Ks[d word][key]
	const long long batch = blockIdx.z;
	if (batch >= b)
		return;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long i0 = (long long)blockIdx.y * 64, j0 = (long long)blockIdx.x * 64;
	const signed char* qb = qq + batch * s * d;
	const signed char* kb = kq + batch * s * d;

	int acc[4][4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0;

	for (long long d0 = 0; d0 < d; d0 += 32) {
		for (int r = 0; r < 2; r++) {
			const int idx = tid + 256 * r;
			const int t = idx / 8, w = idx % 8; // token of the tile, word along d
			const long long dd = d0 + 4 * w;
			Qs[w][t] = i0 + t < s ? load4(qb + (i0 + t) * d, dd, d) : 0;
			Ks[w][t] = j0 + t < s ? load4(kb + (j0 + t) * d, dd, d) : 0;
		}
		__syncthreads();
#pragma unroll
		for (int w = 0; w < 8; w++) {
			int qv[4], kv[4];
			for (int i = 0; i < 4; i++)
				qv[i] = Qs[w][ty + 16 * i];
			for (int j = 0; j < 4; j++)
				kv[j] = Ks[w][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = __dp4a(qv[i], kv[j], acc[i][j]);
		}
		__syncthreads();
	}

	for (int i = 0; i < 4; i++) {
		const long long gi = i0 + ty + 16 * i;
		if (gi >= s)
			continue;
		const float sq = q_scale[batch * s + gi];
		for (int j = 0; j < 4; j++) {
			const long long gj = j0 + tx + 16 * j;
			if (gj < s)
				scores[(batch * s + gi) * s + gj] = (float)acc[i][j] * sq * k_scale[batch * s + gj];
		}
	}
}

// Block-wide reductions over 256 threads: warp shuffles, then the 8 warp results in shared memory.
static __device__ __forceinline__ float block_max(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = sh[0];
	for (int w = 1; w < 8; w++)
		v = fmaxf(v, sh[w]);
	return v;
}

static __device__ __forceinline__ float block_sum(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	v = sh[0];
	for (int w = 1; w < 8; w++)
		v += sh[w];
	return v;
}

// One 256-thread block per query row of s scores. Each thread keeps the exponentials it wrote and
// rescales only those, so no synchronisation is needed between the last two passes.
extern "C" __global__ void __launch_bounds__(256)
softmax_rows(const float* __restrict__ scores, float* __restrict__ probs, long long rows, long long s)
{
	__shared__ float sh_max[8], sh_sum[8];
	const long long row = blockIdx.x;
	if (row >= rows)
		return;
	const float* x = scores + row * s;
	float* p = probs + row * s;
	float mx = __int_as_float(0xff800000); // -inf
	for (long long j = threadIdx.x; j < s; j += 256)
		mx = fmaxf(mx, x[j]);
	mx = block_max(mx, sh_max);
	float sum = 0.0f;
	for (long long j = threadIdx.x; j < s; j += 256) {
		const float e = expf(x[j] - mx);
		p[j] = e;
		sum += e;
	}
	sum = block_sum(sum, sh_sum);
	for (long long j = threadIdx.x; j < s; j += 256)
		p[j] = p[j] / sum;
}

// out[b, i, c] = sum_j probs[b, i, j] * v_q[b, j, c] * v_scale[b, j]: a 32 x 64 output tile per
// 256-thread block, keys in slices of 32; V is dequantized as its tile is staged; 2 x 4 outputs
// per thread, accumulated in f32.
extern "C" __global__ void __launch_bounds__(256)
pv_f32(const float* __restrict__ probs, const signed char* __restrict__ vq, const float* __restrict__ v_scale,
       float* __restrict__ out, long long b, long long s, long long d)
{
	__shared__ float Ps[32][33]; // Ps[query][key]
	__shared__ float Vs[32][64]; // Vs[key][column]
	const long long batch = blockIdx.z;
	if (batch >= b)
		return;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const long long i0 = (long long)blockIdx.y * 32, c0 = (long long)blockIdx.x * 64;
	const float* pb = probs + batch * s * s;
	const signed char* vb = vq + batch * s * d;
	const float* vs = v_scale + batch * s;

	float acc[2][4];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			acc[i][j] = 0.0f;

	for (long long j0 = 0; j0 < s; j0 += 32) {
		for (int r = 0; r < 4; r++) {
			const int idx = tid + 256 * r;
			const int ii = idx / 32, jj = idx % 32;
			Ps[ii][jj] = (i0 + ii < s && j0 + jj < s) ? pb[(i0 + ii) * s + j0 + jj] : 0.0f;
		}
		for (int r = 0; r < 8; r++) {
			const int idx = tid + 256 * r;
			const int jj = idx / 64, cc = idx % 64;
			const long long gj = j0 + jj, gc = c0 + cc;
			Vs[jj][cc] = (gj < s && gc < d) ? (float)vb[gj * d + gc] * vs[gj] : 0.0f;
		}
		__syncthreads();
#pragma unroll 8
		for (int jj = 0; jj < 32; jj++) {
			const float p0 = Ps[ty][jj], p1 = Ps[ty + 16][jj];
			for (int c = 0; c < 4; c++) {
				const float v = Vs[jj][tx + 16 * c];
				acc[0][c] = fmaf(p0, v, acc[0][c]);
				acc[1][c] = fmaf(p1, v, acc[1][c]);
			}
		}
		__syncthreads();
	}

	for (int i = 0; i < 2; i++) {
		const long long gi = i0 + ty + 16 * i;
		if (gi >= s)
			continue;
		for (int c = 0; c < 4; c++) {
			const long long gc = c0 + tx + 16 * c;
			if (gc < d)
				out[(batch * s + gi) * d + gc] = acc[i][c];
		}
	}
}
