// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// Fusion/fused_instance_norm_selu_conv2d: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// conv2d + selu fused into one f64-accumulating SIMT implicit GEMM, followed by the reference's
// plane statistics and an in-place normalisation. It gives the same bits as the reference.
//
// The reference and why it is slow: conv2d_fwd is an f64 implicit GEMM with 32 x 128 tiles and
// 4 x 4 doubles per thread. Its operands come from scalar shared loads with stride-8/32 indexing.
// k is staged 16 at a time through one shared buffer with two barriers per slice and no prefetch,
// and it does two 64-bit divisions per im2col element. It runs at ~6 TFLOP/s of f64. After it come
// selu, stats and apply, each a full pass over the output. kbx's sweep (H200): 1671 ms over all
// perf rows against golden 113 ms. The largest row (32 x 256 x 1024 x 1024 -> 64 channels, 3 x 3,
// K = 2304) is 9.9 TFLOP, ~94% of the sum.
//
// This file: conv_selu_f64 is the f64 implicit GEMM of Fusion/fused_conv2d_add's
// pass_fast_f64_igemm.cu. Tiles are 32 channels x 256 pixels with a 4 x 8 register block of doubles
// per thread. k slices of 8 are register-prefetched and converted once into a double-buffered
// shared memory, and operands are read as conflict-free double2. The block index is flattened with
// the channel tile fastest, so the 2 channel tiles of a pixel tile run together and the input is
// read from HBM about once. Its epilogue writes selu(f32(acc + bias)) straight into y. The conv2d
// and selu scratch buffers are gone. in_stats is the reference's kernel, unchanged, reading y.
// in_apply_inplace normalises y in place (float4 when the plane size allows). Registers: 176, no
// spills.
//
// Why it stays within tolerance: it matches the reference bit for bit. Both sum the exact f64
// products from 0 in the same k order (ci, ky, kx), with padding taps and the tail past K loaded as
// 0. Each fma rounds once, like the reference's fma. Then f32(acc + bias). selu uses the
// reference's f32 expression, and the statistics are the reference's kernel on the same values, so
// mean and invstd are the same bits. The apply step uses the same two roundings. An f32 fmaf chain
// would be risky here: at K = 2304 with randn data its error (~2.4e-8 * K = 5.6e-5 absolute, ~2e-6
// after normalisation) is about 5 sigma of atol 1e-5. The largest row's 2.1e9 outputs would then
// expect tens of failures.
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes, and tests/gpu/check_task.sh with every perf row (the former
// reference, now examples/pass_former_reference.cu, passes against it at every case and perf row;
// each wrong example keeps its verdict).
//
// How it was checked before that: it compiles with NVRTC through kbx (compile ok,
// not_run). The conv core was emulated in numpy with the same block/thread/slice/smem model as
// the fused_conv2d_add example (a script, not kept), on 18 configurations that include every
// case shape of this task (1 x 2 planes, groups + dilation + stride 2 + padding 2, cout = 70, odd
// planes). f32(acc + bias) equals the reference's conv2d stage bit for bit, and every output is
// written exactly once. The selu and statistics code is the reference's.
//
// Expected speed: the largest row is 9.9 TFLOP of f64 FMA, ~34 TFLOP/s peak. At ~75% that is
// ~390 ms (reference ~1570 ms). The statistics and apply passes read 8.5 GB and then read and write
// 8.5 GB: ~6 ms. Estimate for the perf sum: ~420 ms against 1671 ms (~4x). Golden (113 ms) is
// cuDNN with TF32 tensor cores, which this task's f32 contract rules out. Going further would mean
// f32 with two-level accumulation (f32 chunks of one k slice, summed in f32: ~5e-7 after
// normalisation at K = 2304). That would be ~1.5x more but no longer bit-identical.
//
// @kbx scratch instance_norm_mean f32 [nb * cout]
// @kbx scratch instance_norm_invstd f32 [nb * cout]
// @kbx launch conv_selu_f64<<<dim3(cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256) * cdiv(cout / groups, 32), 1, groups), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch in_stats<<<max(1, nb * cout), 256>>>(y, instance_norm_mean, instance_norm_invstd, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), eps)
// @kbx launch in_apply_inplace<<<dim3(max(1, min(cdiv(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 1024)), max(1, min(nb * cout, 65535))), 256>>>(y, instance_norm_mean, instance_norm_invstd, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

// ---- f64 implicit GEMM core (tile 32 channels x 256 pixels, 256 threads, k slices of 8) ----
#define F64_BM 32
#define F64_BN 256
#define F64_BK 8
#define F64_PA (F64_BM + 4) // weight row stride in doubles (even: 16-byte aligned double2 reads)

// q = a / b, r = a - q * b for non-negative a, positive b; 32-bit division when both fit.
static __device__ __forceinline__ void f64_divmod(long long a, long long b, long long &q, long long &r)
{
	if (((unsigned long long)a | (unsigned long long)b) < 0x80000000ull) {
		unsigned int qq = (unsigned int)a / (unsigned int)b;
		q = qq;
		r = (long long)((unsigned int)a - qq * (unsigned int)b);
	} else {
		q = a / b;
		r = a - q * b;
	}
}

// acc[i][j] (channel co0 + ty * 4 + i, pixel p0 + (j / 2) * 64 + tx * 2 + j % 2 of group g) =
// acc0[i] + sum over k = 0 .. K - 1 in order of (double)w * (double)x, K = cin_g * kh * kw ordered
// (ci, ky, kx), padding taps x = 0. Thread (ty, tx): warp wid holds ty = (wid & 1) * 4 + lane / 8,
// tx = (wid >> 1) * 8 + lane % 8. Tile indices come from the caller.
static __device__ __forceinline__ void f64_conv_tile(const float *__restrict__ input, const float *__restrict__ weight,
						     long long cin, long long h, long long w, long long cout,
						     long long kh, long long kw, long long stride, long long padding,
						     long long dilation, long long groups, long long ow, long long P,
						     long long N, long long p0, long long co0, long long g,
						     const double (&acc0)[4], double (&acc)[4][8])
{
	__shared__ __align__(16) double As[2][F64_BK][F64_PA]; // As[buf][kk][channel]
	__shared__ __align__(16) double Bs[2][F64_BK][F64_BN]; // Bs[buf][kk][pixel]

	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long hw = h * w, K = cin_g * kh * kw;
	const int tid = threadIdx.x, wid = tid >> 5, lane = tid & 31;
	const int ty = (wid & 1) * 4 + (lane >> 3), tx = (wid >> 1) * 8 + (lane & 7);
	const int ih = (int)h, iw = (int)w, ikh = (int)kh, ikw = (int)kw, idil = (int)dilation;

	// weights: one per thread per slice, row a_row, k = k0 + a_k
	const int a_row = tid >> 3, a_k = tid & 7;
	const bool a_ok = co0 + a_row < cout_g;
	const float *a_src = weight + (g * cout_g + (a_ok ? co0 + a_row : 0)) * K + a_k;
	// im2col: pixel p0 + tid, the slice's 8 k (the same (ci, ky, kx) sequence for every thread)
	const float *b_src = input;
	int piy = -0x40000000, pix = 0; // a pixel past N fails every row bound check: loads 0
	{
		const long long p = p0 + tid;
		if (p < N) {
			long long n, rem, oy, ox;
			f64_divmod(p, P, n, rem);
			f64_divmod(rem, ow, oy, ox);
			piy = (int)(oy * stride - padding);
			pix = (int)(ox * stride - padding);
			b_src = input + (n * cin + g * cin_g) * hw;
		}
	}
	const int khw = ikh * ikw;
	int kc = 0, ky = 0, kx = 0; // (ci, ky, kx) of the slice's first k
	const int dkc = F64_BK / khw, dky = (F64_BK % khw) / ikw, dkx = (F64_BK % khw) % ikw;

	float ra, rb[F64_BK];
	auto load_slice = [&](long long k0) {
		ra = (a_ok && k0 + a_k < K) ? a_src[k0] : 0.0f;
		int c = kc, yy = ky, xx = kx;
#pragma unroll
		for (int r = 0; r < F64_BK; r++) {
			if (r) { // next k: kx + 1 with carries into ky and ci
				if (++xx == ikw) {
					xx = 0;
					if (++yy == ikh) {
						yy = 0;
						c++;
					}
				}
			}
			const int iy = piy + yy * idil, ix = pix + xx * idil;
			rb[r] = (k0 + r < K && (unsigned)iy < (unsigned)ih && (unsigned)ix < (unsigned)iw)
					? b_src[(long long)c * hw + (long long)iy * w + ix]
					: 0.0f;
		}
	};
	auto advance_k = [&]() {
		kx += dkx;
		if (kx >= ikw) {
			kx -= ikw;
			ky++;
		}
		ky += dky;
		if (ky >= ikh) {
			ky -= ikh;
			kc++;
		}
		kc += dkc;
	};
	auto store_slice = [&](int buf) {
		As[buf][a_k][a_row] = (double)ra;
#pragma unroll
		for (int r = 0; r < F64_BK; r++)
			Bs[buf][r][tid] = (double)rb[r];
	};

#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = acc0[i];

	const long long nslices = (K + F64_BK - 1) / F64_BK;
	load_slice(0);
	store_slice(0);
	__syncthreads();
	for (long long s = 0; s < nslices; s++) {
		const int cur = (int)(s & 1);
		const bool more = s + 1 < nslices;
		if (more) {
			advance_k();
			load_slice((s + 1) * F64_BK);
		}
#pragma unroll
		for (int kk = 0; kk < F64_BK; kk++) {
			double a[4], b[8];
#pragma unroll
			for (int q = 0; q < 2; q++) {
				double2 v = *reinterpret_cast<const double2 *>(&As[cur][kk][ty * 4 + 2 * q]);
				a[2 * q] = v.x;
				a[2 * q + 1] = v.y;
			}
#pragma unroll
			for (int q = 0; q < 4; q++) {
				double2 v = *reinterpret_cast<const double2 *>(&Bs[cur][kk][q * 64 + tx * 2]);
				b[2 * q] = v.x;
				b[2 * q + 1] = v.y;
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fma(a[i], b[j], acc[i][j]);
		}
		if (more)
			store_slice(cur ^ 1);
		__syncthreads();
	}
}

// selu[n, c, oy, ox] = selu(f32(acc + bias[c])) for the thread's 4 x 8 outputs of one tile.
extern "C" __global__ void __launch_bounds__(256, 1)
conv_selu_f64(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
	      float *__restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
	      long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
	      int has_bias)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cout_g = cout / groups, P = oh * ow, N = nb * P;
	const long long nct = (cout_g + F64_BM - 1) / F64_BM; // channel tiles per group
	const long long pt = (long long)blockIdx.x / nct, ct = (long long)blockIdx.x % nct;
	const long long p0 = pt * F64_BN, co0 = ct * F64_BM, g = blockIdx.z;
	if (p0 >= N) // never with the launch line's grid
		return;
	const int tid = threadIdx.x, wid = tid >> 5, lane = tid & 31;
	const int ty = (wid & 1) * 4 + (lane >> 3), tx = (wid >> 1) * 8 + (lane & 7);

	double acc0[4] = {0.0, 0.0, 0.0, 0.0}, acc[4][8]; // the reference adds the bias after the sum
	f64_conv_tile(input, weight, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, ow, P, N, p0, co0,
		      g, acc0, acc);

	const float poscoef = __int_as_float(0x3f867d5f), negcoef = __int_as_float(0x3fe10966);
#pragma unroll
	for (int j = 0; j < 8; j++) {
		const long long p = p0 + (j >> 1) * 64 + tx * 2 + (j & 1);
		if (p >= N)
			continue;
		long long n, rem;
		f64_divmod(p, P, n, rem);
		float *yp = y + n * cout * P + rem;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			const long long co = co0 + ty * 4 + i;
			if (co >= cout_g)
				continue;
			const long long ch = g * cout_g + co;
			const double b = has_bias ? (double)bias[ch] : 0.0;
			const float v = (float)(acc[i][j] + b);
			yp[ch * P] = v > 0.0f ? __fmul_rn(v, poscoef) : __fmul_rn(expm1f(v), negcoef);
		}
	}
}

// The reference's in_stats, unchanged: one block per (n, c) plane, f64 sums of (s - s0) and
// (s - s0)^2 with s0 the plane's first value, the same thread order and reduction tree.
static __device__ __forceinline__ double block_sum(double v, double *sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int wi = 0; wi < 8; wi++)
		r += sh[wi];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
in_stats(const float *__restrict__ s, float *__restrict__ mean_p, float *__restrict__ invstd_p, long long planes,
	 long long cnt, float eps)
{
	__shared__ double sh[8];
	const long long p = blockIdx.x;
	if (p >= planes)
		return;
	const float *xp = s + p * cnt;
	const double s0 = (double)xp[0];
	double s1 = 0.0, s2 = 0.0;
	for (long long e = threadIdx.x; e < cnt; e += 256) {
		double v = (double)xp[e] - s0;
		s1 += v;
		s2 = fma(v, v, s2);
	}
	s1 = block_sum(s1, sh);
	s2 = block_sum(s2, sh);
	if (threadIdx.x == 0) {
		double m2 = s2 - s1 * (s1 / (double)cnt);
		if (m2 < 0.0) // rounding only; keeps NaN
			m2 = 0.0;
		mean_p[p] = (float)(s0 + s1 / (double)cnt);
		invstd_p[p] = (float)(1.0 / sqrt(m2 / (double)cnt + (double)eps));
	}
}

// y = (y - mean) * invstd in place, float4 where the plane allows (cnt % 4 == 0), else scalar.
extern "C" __global__ void __launch_bounds__(256)
in_apply_inplace(float *y, const float *__restrict__ mean_p, const float *__restrict__ invstd_p, long long planes,
		 long long cnt)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long p = blockIdx.y; p < planes; p += gridDim.y) {
		const float mean = mean_p[p], invstd = invstd_p[p];
		float *yp = y + p * cnt;
		if ((cnt & 3) == 0) {
			float4 *y4 = reinterpret_cast<float4 *>(yp);
			for (long long e = tid; e < cnt / 4; e += stride) {
				float4 v = y4[e];
				v.x = __fmul_rn(__fsub_rn(v.x, mean), invstd);
				v.y = __fmul_rn(__fsub_rn(v.y, mean), invstd);
				v.z = __fmul_rn(__fsub_rn(v.z, mean), invstd);
				v.w = __fmul_rn(__fsub_rn(v.w, mean), invstd);
				y4[e] = v;
			}
		} else {
			for (long long e = tid; e < cnt; e += stride)
				yp[e] = __fmul_rn(__fsub_rn(yp[e], mean), invstd);
		}
	}
}
