// @kbx expect pass
// Correct alternative: fast intrinsics __expf (ex2.approx, ~2 ulp plus a small error growing with
// |x|) and __frcp_rn, one element per thread. Their f32 error is far below a bf16 ulp, so the bf16
// result is the reference's or one ulp away, inside the tolerance; __expf(inf) = inf and
// __expf(-inf) = 0 keep the limits 0 and 1, NaN stays NaN.
// @kbx launch sigmoid_bf16<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

#include <cuda_bf16.h>

extern "C" __global__ void sigmoid_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
					long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = __bfloat162float(x[i]);
		y[i] = __float2bfloat16_rn(__frcp_rn(1.0f + __expf(-v)));
	}
}
