// fused_sub_gelu reference: the two stages of the KernelBenchX function, each into its own buffer.
//   stage `sub`  (input - alpha * other): sub = input - (alpha * other), each op rounded to f32
//   stage `gelu` (the function's own formulas, not F.gelu):
//       approximate = 0: y = (r * erf(r / 2 ** 0.5)) * 0.5
//       approximate = 1: y = (0.5 * r) * (1 + tanh(k * (r + 0.044715 * (r * r * r))))
// The Python floats (2 / pi) ** 0.5 and 2 ** 0.5 enter the f32 kernels rounded to f32, as PyTorch's
// tensor-scalar ops do. Every multiply and add uses __fmul_rn / __fadd_rn, which forbid FMA
// contraction, so each eager rounding is reproduced; erff and tanhf are the CUDA math library's
// (PyTorch calls the same). Writing `sub` out and reading it back is one extra pass: the price of a
// reference whose stages can be diffed.
//
// @kbx scratch sub f32 [n]
// @kbx launch sub_alpha<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, other, sub, n, alpha)
// @kbx launch gelu<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(sub, y, n, approximate)

extern "C" __global__ void __launch_bounds__(256)
sub_alpha(const float* __restrict__ input, const float* __restrict__ other, float* __restrict__ sub, long long n,
          float alpha)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		sub[i] = __fsub_rn(input[i], __fmul_rn(alpha, other[i]));
}

// result * torch.erf(result / (2.0 ** 0.5)) * 0.5
static __device__ __forceinline__ float gelu_erf_kbx(float r)
{
	const float sqrt2 = 1.4142135623730951f; // 2.0 ** 0.5 rounded to f32
	return __fmul_rn(__fmul_rn(r, erff(__fdiv_rn(r, sqrt2))), 0.5f);
}

// 0.5 * result * (1 + torch.tanh(((2.0 / torch.pi) ** 0.5) * (result + 0.044715 * result ** 3)))
static __device__ __forceinline__ float gelu_tanh_kbx(float r)
{
	const float k = 0.7978845608028654f; // (2 / pi) ** 0.5 rounded to f32 (0.7978846)
	const float r3 = __fmul_rn(__fmul_rn(r, r), r);
	const float inner = __fadd_rn(r, __fmul_rn(0.044715f, r3));
	return __fmul_rn(__fmul_rn(0.5f, r), __fadd_rn(1.0f, tanhf(__fmul_rn(k, inner))));
}

extern "C" __global__ void __launch_bounds__(256)
gelu(const float* __restrict__ sub, float* __restrict__ y, long long n, int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		const float r = sub[i];
		y[i] = approximate ? gelu_tanh_kbx(r) : gelu_erf_kbx(r);
	}
}
