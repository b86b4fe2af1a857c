// Fusion/fused_mul_sub: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 15/15 outputs pass (max err 0); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 1.1 ms
// against 2.7 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Faster version: the three eager ops in one pass, 16-byte loads and stores, no intermediates.
//
// What the reference does, and why it is slow at the perf sizes: three grid-stride kernels, each
// into its own buffer (`mul` = input * other_mul, `mul2` = alpha * other_sub, then y = mul - mul2),
// so the n-element tensors cross DRAM 3 (read) + 1 (write) + 2 x (write + read) = 8 times instead
// of 4, two of the kernels with 4-byte accesses and a 64-bit `e % c` per element. Measured on an
// H200 (kbx sweep, 2026-12-01): 2.626 ms summed over the perf rows (n = 2^12 .. 2^27) against
// PyTorch's 2.127 ms, 1791 GB/s (42% of the 4245 GB/s copy bandwidth) at n = 2^27.
//
// What this kernel does: y = __fsub_rn(__fmul_rn(input, m), t2) with m = other_mul[row] or
// f32(mul_value), t2 = __fmul_rn(f32(alpha), other_sub[row]) or the f32-rounded f64 product
// alpha * sub_value: exactly the reference's three roundings in the same order (no FMA contraction:
// explicit _rn intrinsics), so y is bit-identical to the reference, NaN / inf / -0 included.
// Each thread handles two float4 groups (all loads issued before any use; streaming __ldcs /
// __stcs, the data is touched once); a broadcast operand (mr or sr = 1 with r > 1) is indexed by
// the flat index modulo c, which keeps a float4 group inside one row since c % 4 == 0 on that path.
// Any c % 4 != 0 or a pointer not 16-byte aligned takes a plain scalar grid-stride loop with the
// same arithmetic (the small odd cases: c = 3, 257, 129, 100, 100003, 1). n = 0 does nothing.
//
// Expected at n = 2^27: 4 x 512 MiB = 2.15 GB of compulsory traffic (the task's byte formula counts
// exactly that) at ~4.0 TB/s (~95% of the copy rate for a 3-read / 1-write stream) = ~0.54 ms
// against the reference's ~1.2 ms there (2.15 GB / 1791 GB/s): ~2.2x at the large rows, ~2x on the
// sum; the small rows (n <= 2^16) are one launch of a few microseconds either way.
//
// Checked (no GPU run yet): compiled and ABI-checked with kbx (verdict not_run, no device); a numpy
// emulation (not kept) of this kernel's indexing (blocks, threads, the two float4 groups per thread,
// the vector / scalar split, broadcast rows, both number modes) against the reference's three
// stages on every case of task.ini plus r = 5, c = 12 / 16, 3 x 4100 and 1 x 2^14 with mr, sr in
// {1, r}, each also with NaN / inf / -0 / denormal / huge inputs: bit-identical everywhere.
//
// @kbx launch mul_sub_fused<<<max(1, min(cdiv(r * c, 2048), 1048576)), 256>>>(input, other_mul, other_sub, y, r, c, mr, sr, mul_mode, sub_mode, mul_value, sub_value, alpha)

extern "C" __global__ void __launch_bounds__(256)
mul_sub_fused(const float *__restrict__ x, const float *__restrict__ om, const float *__restrict__ os,
	      float *__restrict__ y, long long r, long long c, long long mr, long long sr, int mul_mode, int sub_mode,
	      double mul_value, double sub_value, double alpha)
{
	const long long n = r * c;
	const float mv = (float)mul_value;
	const float af = (float)alpha;
	const float number = (float)(alpha * sub_value); // Python's f64 product, rounded once
	const bool mwrap = mr == 1 && r > 1, swrap = sr == 1 && r > 1; // broadcast rows: index e % c
	const bool vec = (c & 3) == 0 &&
			 ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(om) |
			   reinterpret_cast<unsigned long long>(os) | reinterpret_cast<unsigned long long>(y)) & 15) == 0;
	if (vec) {
		const long long nq = n >> 2; // float4 groups
		const long long stride = (long long)gridDim.x * 512;
		for (long long q0 = (long long)blockIdx.x * 512 + threadIdx.x; q0 < nq; q0 += stride) {
			float4 xv[2], mv4[2], sv4[2];
#pragma unroll
			for (int u = 0; u < 2; u++) {
				const long long q = q0 + 256 * u;
				if (q < nq) {
					const long long e = q << 2;
					xv[u] = __ldcs(reinterpret_cast<const float4 *>(x) + q);
					if (!mul_mode)
						mv4[u] = __ldcs(reinterpret_cast<const float4 *>(om + (mwrap ? e % c : e)));
					if (!sub_mode)
						sv4[u] = __ldcs(reinterpret_cast<const float4 *>(os + (swrap ? e % c : e)));
				}
			}
#pragma unroll
			for (int u = 0; u < 2; u++) {
				const long long q = q0 + 256 * u;
				if (q < nq) {
					const float4 a = xv[u];
					float4 m4, t4, o;
					if (mul_mode)
						m4 = make_float4(mv, mv, mv, mv);
					else
						m4 = mv4[u];
					if (sub_mode) {
						t4 = make_float4(number, number, number, number);
					} else {
						const float4 s = sv4[u];
						t4 = make_float4(__fmul_rn(af, s.x), __fmul_rn(af, s.y), __fmul_rn(af, s.z),
								 __fmul_rn(af, s.w));
					}
					o.x = __fsub_rn(__fmul_rn(a.x, m4.x), t4.x);
					o.y = __fsub_rn(__fmul_rn(a.y, m4.y), t4.y);
					o.z = __fsub_rn(__fmul_rn(a.z, m4.z), t4.z);
					o.w = __fsub_rn(__fmul_rn(a.w, m4.w), t4.w);
					__stcs(reinterpret_cast<float4 *>(y) + q, o);
				}
			}
		}
		return;
	}
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		const float t1 = __fmul_rn(x[e], mul_mode ? mv : om[mwrap ? e % c : e]);
		const float t2 = sub_mode ? number : __fmul_rn(af, os[swrap ? e % c : e]);
		y[e] = __fsub_rn(t1, t2);
	}
}
