// @kbx expect pass
// Correct alternative, and the point of this task's semantics: U diag(S) Vh of a reduced SVD is A
// itself (up to rounding), so the fastest correct kernel copies A. float4 copy with a scalar tail.
//
// @kbx launch copy4<<<max(1, min(cdiv(m * n, 1024), 65536)), 256>>>(A, y, i64(m * n))

extern "C" __global__ void copy4(const float* __restrict__ a, float* __restrict__ y, long long total)
{
	const long long nv = total / 4, stride = (long long)gridDim.x * blockDim.x;
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (long long i = tid; i < nv; i += stride)
		reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(a)[i];
	for (long long i = nv * 4 + tid; i < total; i += stride)
		y[i] = a[i];
}
