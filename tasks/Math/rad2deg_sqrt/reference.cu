// deg = x * (180 / pi) and root = sqrt(x) from one read of x, f32.
// rad2deg in PyTorch is a multiply by the Python number 180 / pi, which its CUDA kernel rounds to f32
// (57.2957795f) before the one f32 multiply; sqrtf is IEEE, correctly rounded (NVRTC's default -prec-sqrt).
// Memory-bound (one read, two writes): grid-stride loop over float4 groups, then the n % 4 tail elements.

// @kbx launch rad2deg_sqrt_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, deg, root, n)

#define RAD2DEG 57.295779513082320876798154814105f

extern "C" __global__ void rad2deg_sqrt_f32(const float *__restrict__ x, float *__restrict__ deg,
					   float *__restrict__ root, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *d4 = reinterpret_cast<float4 *>(deg);
	float4 *r4 = reinterpret_cast<float4 *>(root);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		d4[v] = make_float4(a.x * RAD2DEG, a.y * RAD2DEG, a.z * RAD2DEG, a.w * RAD2DEG);
		r4[v] = make_float4(sqrtf(a.x), sqrtf(a.y), sqrtf(a.z), sqrtf(a.w));
	}
	long long i = n4 * 4 + tid;
	if (i < n) {
		float a = x[i];
		deg[i] = a * RAD2DEG;
		root[i] = sqrtf(a);
	}
}
