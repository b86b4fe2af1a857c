// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_mul_sub reference: the three eager PyTorch ops of `input * other_mul - alpha * other_sub`,
// each into its own buffer and each rounded to f32 (__f*_rn: no FMA contraction).
//   stage `mul`  (input * other_mul): other_mul a tensor [mr, c] (mr = 1 broadcasts a row) or the
//                Python number f32(mul_value)
//   stage `mul2` (alpha * other_sub): a tensor: f32(alpha) * other_sub[row], rounded per element; a
//                number: the Python f64 product alpha * sub_value, rounded to f32 (and broadcast)
//   stage `sub`  (t1 - t2): y
// Keeping `mul` and `mul2` in memory costs two extra passes over the [r, c] tensor: the price of a
// reference whose stages can be diffed. Each stage is a grid-stride loop over the flat index; the
// row of a broadcast operand is the flat index modulo c (no division when r = 1, the perf layout).
//
// @kbx scratch mul f32 [r, c]
// @kbx scratch mul2 f32 [r, c]
// @kbx launch mul_fwd<<<max(1, min(cdiv(r * c, 1024), 65536)), 256>>>(input, other_mul, mul, i64(r * c), c, mr, mul_mode, mul_value)
// @kbx launch mul2_fwd<<<max(1, min(cdiv(r * c, 1024), 65536)), 256>>>(other_sub, mul2, i64(r * c), c, sr, sub_mode, sub_value, alpha)
// @kbx launch sub_fwd<<<max(1, min(cdiv(r * c, 1024), 65536)), 256>>>(mul, mul2, y, i64(r * c))

// element e of a [rows, c] operand that is either full (rows > 1) or one broadcast row (rows = 1)
static __device__ __forceinline__ long long bcast(long long e, long long c, long long rows)
{
	return rows == 1 ? e % c : e;
}

extern "C" __global__ void __launch_bounds__(256)
mul_fwd(const float* __restrict__ x, const float* __restrict__ om, float* __restrict__ t1, long long n, long long c,
        long long mr, int mul_mode, double mul_value)
{
	const float mv = (float)mul_value;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		t1[e] = __fmul_rn(x[e], mul_mode ? mv : om[bcast(e, c, mr)]);
}

extern "C" __global__ void __launch_bounds__(256)
mul2_fwd(const float* __restrict__ os, float* __restrict__ t2, long long n, long long c, long long sr, int sub_mode,
         double sub_value, double alpha)
{
	const float af = (float)alpha;
	const float number = (float)(alpha * sub_value); // Python's f64 product, rounded once
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		t2[e] = sub_mode ? number : __fmul_rn(af, os[bcast(e, c, sr)]);
}

extern "C" __global__ void __launch_bounds__(256)
sub_fwd(const float* __restrict__ t1, const float* __restrict__ t2, float* __restrict__ y, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const float4* a4 = reinterpret_cast<const float4*>(t1);
	const float4* b4 = reinterpret_cast<const float4*>(t2);
	float4* y4 = reinterpret_cast<float4*>(y);
	for (long long q = tid; q < n / 4; q += stride) {
		float4 a = a4[q], b = b4[q], o;
		o.x = __fsub_rn(a.x, b.x);
		o.y = __fsub_rn(a.y, b.y);
		o.z = __fsub_rn(a.z, b.z);
		o.w = __fsub_rn(a.w, b.w);
		y4[q] = o;
	}
	for (long long i = (n / 4) * 4 + tid; i < n; i += stride)
		y[i] = __fsub_rn(t1[i], t2[i]);
}
