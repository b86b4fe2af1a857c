// Fusion/fused_conv2d_add: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Fused conv2d + alpha * other as one f64-accumulating SIMT implicit GEMM. It gives the same bits as
// the reference.
//
// The reference and why it is slow: stage conv2d_fwd is a naive direct convolution. A block handles
// one (sample, channel) plane, each thread one output pixel, with f64 accumulation (f64 FMA runs at
// half the f32 rate on an H200) and scalar loads. Every input value is reread from L1/L2 once per
// output channel. The result goes to a scratch buffer, and add_alpha reads it back. kbx's sweep
// (H200): 405.95 ms over all perf rows against golden 9.93 ms. The largest row
// (16 x 32 x 1024 x 1024, 3 x 3, 32 -> 32 channels) is 309 GFLOP, 3/4 of the sum.
//
// This kernel: Y_g = W_g @ im2col(X_g) with a 32-channel x 256-pixel tile per 256-thread block
// (oc = 32 at every perf row: one channel tile, so the input is read once). Each thread owns a
// 4 x 8 register block of f64 accumulators. The k slices of 8 are register-prefetched while the
// current slice is multiplied: the weights (one per thread) and the im2col taps (8 per thread, one
// pixel; the (ci, ky, kx) of each k is carried from k to k, with no division in the loop). They are
// converted once to f64 and stored in a double-buffered shared memory (37 KB), with one
// __syncthreads per slice. Operands are read as double2: a warp is 4 channel rows x 8 pixel pairs,
// so each read is one conflict-free wavefront, 6 per 32 DFMA. The epilogue does the add stage in
// registers: y = f32(acc) + f32(alpha * other[...]) (__fadd_rn / __fmul_rn, broadcast as the
// reference). The conv2d scratch buffer and its write and read are gone. General cases are handled:
// groups (grid z), any kernel size, stride, padding, dilation, oc not a multiple of 32, pixels past
// N, n = 0 (empty grid), 64-bit offsets. Registers: 176, no spills (1 block of 8 warps per SM).
//
// Why it stays within tolerance: it matches the reference bit for bit. The accumulator starts at
// (double)bias[co] as in the reference. Every product of two f32 values is exact in f64, so each
// fma(w, x, acc) rounds once, like the reference's acc += x * w. They are added in the same k order
// (ci, ky, kx). The taps that the reference skips (padding, the zero tail past K) add an exact
// +-0 here, which changes no bits except possibly the sign of a zero sum. The one exception is
// 0 * inf = NaN where a weight is infinite over a padding tap; no case has infinite weights. The
// add stage uses the same two roundings. An f32 fmaf chain would not pass: 288 randn products give
// ~7e-6 (std) of error against atol 1e-5 near y = 0, and the perf rows are checked too.
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes, and tests/gpu/check_task.sh with every perf row (the former
// reference, now examples/pass_former_reference.cu, passes against it at every case and perf row;
// each wrong example keeps its verdict).
//
// How it was checked before that: it compiles with NVRTC through kbx (compile ok,
// not_run). A numpy emulation (a script, not kept) runs the kernel's block/thread mapping,
// the slice loader with its (ci, ky, kx) carry, the double-buffered smem (the buffer being refilled
// is poisoned with NaN first) and the per-thread output map. On 18 configurations (every task.ini
// case shape, stride / dilation / groups / 1 x 1 / 1 x 5 / 5 x 2 kernels, oc = 65 / 66 / 70,
// several pixel tiles) plus the special-values case, every output is written exactly once and its
// f32 conv value equals the reference's emulation bit for bit (NaN included).
//
// Expected speed: f64 FMA peak on an H200 is ~34 TFLOP/s. At ~75% of that, the largest row
// (309 GFLOP) takes ~12 ms; memory (input, other and y, 6.4 GB) takes ~1.6 ms and overlaps.
// Estimate for the perf sum: ~16 ms against 406 ms (~25x). Golden (cuDNN, probably TF32) is 9.9 ms.
//
// @kbx launch conv2d_add_f64<<<dim3(cdiv(n * ho * wo, 256) * cdiv(oc / groups, 32), 1, groups), 256>>>(input, weight, bias, other, y, n, c, h, w, oc, kh, kw, ho, wo, stride, padding, dilation, groups, on, ooc, oh, ow, alpha)

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

// y[s, c, oy, ox] = f32(conv) + f32(alpha * other[...]) for the thread's 4 x 8 outputs of one tile.
extern "C" __global__ void __launch_bounds__(256, 1)
conv2d_add_f64(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
	       const float *__restrict__ other, float *__restrict__ y, long long n, long long c, long long h,
	       long long w, long long oc, long long kh, long long kw, long long ho, long long wo, long long stride,
	       long long padding, long long dilation, long long groups, long long on, long long ooc, long long oh,
	       long long ow, float alpha)
{
	const long long cout_g = oc / groups, P = ho * wo, N = n * P;
	const long long nct = (cout_g + F64_BM - 1) / F64_BM; // channel tiles per group
	const long long pt = (long long)blockIdx.x / nct, ct = (long long)blockIdx.x % nct;
	const long long p0 = pt * F64_BN, co0 = ct * F64_BM, g = blockIdx.z;
	if (p0 >= N) // never with the launch line's grid
		return;
	const int tid = threadIdx.x, wid = tid >> 5, lane = tid & 31;
	const int ty = (wid & 1) * 4 + (lane >> 3), tx = (wid >> 1) * 8 + (lane & 7);

	double acc0[4], acc[4][8];
#pragma unroll
	for (int i = 0; i < 4; i++) { // the reference's accumulator starts at the bias
		const long long co = co0 + ty * 4 + i;
		acc0[i] = co < cout_g ? (double)bias[g * cout_g + co] : 0.0;
	}
	f64_conv_tile(input, weight, c, h, w, oc, kh, kw, stride, padding, dilation, groups, wo, P, N, p0, co0, g,
		      acc0, acc);

#pragma unroll
	for (int j = 0; j < 8; j++) {
		const long long p = p0 + (j >> 1) * 64 + tx * 2 + (j & 1);
		if (p >= N)
			continue;
		long long s, rem, r, q;
		f64_divmod(p, P, s, rem);
		f64_divmod(rem, wo, r, q);
		const float *op = other + (on == 1 ? 0 : s) * ooc * oh * ow + (oh == 1 ? 0 : r) * ow + (ow == 1 ? 0 : q);
		float *yp = y + s * oc * P + rem;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			const long long co = co0 + ty * 4 + i;
			if (co >= cout_g)
				continue;
			const long long ch = g * cout_g + co;
			const float o = op[(ooc == 1 ? 0 : ch) * oh * ow];
			yp[ch * P] = __fadd_rn((float)acc[i][j], __fmul_rn(alpha, o));
		}
	}
}
