// @kbx expect pass
// Correct alternative: one kernel, no intermediate buffers: a warp per row computes the f32 dot
// product (lane-strided, float4 loads when m % 4 == 0, warp shuffle sum) and lane 0 applies the
// sigmoid and the subtraction.
//
// @kbx launch mv_sigmoid_sub<<<max(1, min(cdiv(n, 8), 65535)), 256>>>(input, vec, other, y, n, m, omode, other_value, alpha)

extern "C" __global__ void mv_sigmoid_sub(const float* __restrict__ a, const float* __restrict__ v,
                                          const float* __restrict__ other, float* __restrict__ y, long long n,
                                          long long m, int omode, float other_value, float alpha)
{
	const int lane = threadIdx.x & 31;
	for (long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5); row < n; row += (long long)gridDim.x * 8) {
		float s = 0.0f;
		if ((m & 3) == 0) {
			const float4* a4 = reinterpret_cast<const float4*>(a + row * m);
			const float4* v4 = reinterpret_cast<const float4*>(v);
			for (long long k = lane; k < m / 4; k += 32) {
				float4 x = a4[k], w = v4[k];
				s = fmaf(x.x, w.x, s);
				s = fmaf(x.y, w.y, s);
				s = fmaf(x.z, w.z, s);
				s = fmaf(x.w, w.w, s);
			}
		} else {
			for (long long k = lane; k < m; k += 32)
				s = fmaf(a[row * m + k], v[k], s);
		}
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (lane == 0) {
			float sg = 1.0f / (1.0f + expf(-s));
			y[row] = sg - alpha * (omode ? other_value : other[row]);
		}
	}
}
