// GELU on int8 as F.gelu(x.float(), approximate).to(torch.int8): widen to f32, PyTorch's f32 GELU
// formula (same operation order as its GeluCUDAKernelImpl), then a C cast to int8 (truncation
// toward zero; the value is in (-0.17, 127], so it always fits).
//   approximate = 0: x * 0.5f * (1 + erff(x * M_SQRT1_2))
//   approximate = 1: 0.5f * x * (1 + tanhf(kBeta * (x + kKappa * x^3)))
// Exactness: the integer part only changes where the f32 value is within an ulp or two of an
// integer. For x >= 6 erff / tanhf round to exactly 1 and the value is x; x = 5 is 3 ulp below 5
// in the erf form and 1 ulp below in the tanh form (1 - tanh(8.449) = 1.54 ulp of 1, rounded to 2
// ulp by tanhf's final 1 - 2 / (exp(2u) + 1)), so 4 in both. A CPU model of all 256 inputs with
// erf / tanh perturbed by +-2 ulp finds no other input near an integer boundary.
// Memory-bound: a grid-stride loop over 16-byte vectors of 16 values (cudaMalloc'd buffers are
// 256-byte aligned), four vectors per thread (cdiv(n, 16384) blocks of 256), then the n % 16 tail
// elements, one each for the first threads of the grid.

// @kbx launch gelu_i8<<<max(1, cdiv(n, 16384)), 256>>>(x, y, n, approximate)

__device__ __forceinline__ signed char gelu_one(signed char q, int approximate)
{
	float x = (float)q;
	float r;
	if (approximate) {
		const float kBeta = 0.7978845608028654f; /* sqrt(2 / pi) */
		const float kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		r = 0.5f * x * (1.0f + tanhf(inner));
	} else {
		const float kAlpha = 0.7071067811865476f; /* M_SQRT1_2 */
		r = x * 0.5f * (1.0f + erff(x * kAlpha));
	}
	return (signed char)(int)r; /* truncation toward zero, as static_cast<int8_t>(float) */
}

extern "C" __global__ void gelu_i8(const signed char *__restrict__ x, signed char *__restrict__ y, long long n,
				  int approximate)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n16 = n / 16;
	const uint4 *x16 = reinterpret_cast<const uint4 *>(x);
	uint4 *y16 = reinterpret_cast<uint4 *>(y);
	for (long long v = tid; v < n16; v += stride) {
		uint4 p = x16[v];
		signed char *b = reinterpret_cast<signed char *>(&p);
#pragma unroll
		for (int k = 0; k < 16; k++)
			b[k] = gelu_one(b[k], approximate);
		y16[v] = p;
	}
	long long i = n16 * 16 + tid; /* at most 15 tail elements */
	if (i < n)
		y[i] = gelu_one(x[i], approximate);
}
