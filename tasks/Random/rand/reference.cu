// torch.rand for f32: y[i] uniform on [0, 1). One Philox 4x32-10 call (kbx/rng.h) yields four 32-bit
// words; element i takes word i % 4 of kbx_draw4(seed, i / 4), keeps its top 24 bits and scales by
// 2^-24, so every value is an exact multiple of 2^-24 in [0, 1 - 2^-24] (the same conversion as
// kbx_uniform). Drawing four values per call quarters the Philox work against one call per element.
// Grid-stride over groups of four; full groups are stored as one float4, the last partial group
// element by element.

// @kbx launch rand_f32<<<max(1, cdiv(n, 1024)), 256>>>(y, n, seed)

#include <kbx/rng.h>

__device__ __forceinline__ float to_unit(unsigned int bits)
{
	return (float)(bits >> 8) * (1.0f / 16777216.0f);
}

extern "C" __global__ void rand_f32(float *__restrict__ y, long long n, long long seed)
{
	long long groups = (n + 3) / 4;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += stride) {
		struct kbx_u4 r = kbx_draw4((unsigned long long)seed, (unsigned long long)g);
		float4 v = make_float4(to_unit(r.x), to_unit(r.y), to_unit(r.z), to_unit(r.w));
		long long i = g * 4;
		if (i + 4 <= n) {
			reinterpret_cast<float4 *>(y)[g] = v;
		} else {
			y[i] = v.x; /* i < n since g < groups */
			if (i + 1 < n)
				y[i + 1] = v.y;
			if (i + 2 < n)
				y[i + 2] = v.z;
		}
	}
}
