// @kbx expect wrong
// Mistake: wrong axis. Ignores b and treats the input as a * b rows of d contiguous values, which is right
// only for the last dimension: dim = 0 of a matrix (b > 1) comes out wrong (corner_dim0, random_*_dim0,
// strided, strided_wide, large_values_strided, special_cols fail).
// @kbx launch softmax_f32<<<max(1, a * b), 256>>>(x, y, a, d, b)

extern "C" __global__ void softmax_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long d,
				      long long b)
{
	__shared__ float part[256];
	long long r = blockIdx.x;
	if (r >= a * b || d == 0)
		return;
	const float *xr = x + r * d;
	float *yr = y + r * d;
	float m = -__int_as_float(0x7f800000);
	for (long long k = threadIdx.x; k < d; k += blockDim.x)
		m = fmaxf(m, xr[k]);
	part[threadIdx.x] = m;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + h]);
		__syncthreads();
	}
	m = part[0];
	__syncthreads();
	float s = 0.0f;
	for (long long k = threadIdx.x; k < d; k += blockDim.x)
		s += expf(xr[k] - m);
	part[threadIdx.x] = s;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			part[threadIdx.x] += part[threadIdx.x + h];
		__syncthreads();
	}
	s = part[0];
	for (long long k = threadIdx.x; k < d; k += blockDim.x)
		yr[k] = expf(xr[k] - m) / s;
}
