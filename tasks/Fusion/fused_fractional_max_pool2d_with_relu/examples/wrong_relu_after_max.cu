// @kbx expect wrong
// Mistake: relu fused after the max, relu(max(x)) instead of max(relu(x)). The values agree, but the
// indices do not: in a window of negative values relu makes every element 0 and PyTorch's argmax
// keeps the first one, while this kernel points at the largest negative value. Right whenever each
// window holds a positive value; all_negative (and the randn cases' all-negative windows) fail on
// `indices`. The samples follow the task's convention (`random_samples` matches); there is no
// `relu` buffer.
//
// @kbx scratch random_samples f32 [n * c * 2]
// @kbx launch draw<<<max(1, cdiv(n * c * 2, 256)), 256>>>(random_samples, i64(n * c * 2), seed)
// @kbx launch pool_then_relu<<<max(1, cdiv(n * c * oh * ow, 256)), 256>>>(x, random_samples, y, indices, i64(n * c), h, w, oh, ow, kh, kw)

#include <kbx/rng.h>

extern "C" __global__ void draw(float* __restrict__ s, long long total, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < total)
		s[i] = kbx_uniform((unsigned long long)seed, (unsigned long long)i);
}

static __device__ long long start_of(float u, long long i, long long in, long long out, long long k)
{
	if (i == out - 1)
		return in - k;
	float alpha = (float)(in - k) / (float)(out - 1);
	return (long long)(((float)i + u) * alpha) - (long long)(u * alpha);
}

extern "C" __global__ void pool_then_relu(const float* __restrict__ x, const float* __restrict__ s, float* __restrict__ y,
                                          long long* __restrict__ indices, long long planes, long long h, long long w,
                                          long long oh, long long ow, long long kh, long long kw)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= planes * oh * ow)
		return;
	long long q = i / (oh * ow), oy = (i / ow) % oh, ox = i % ow;
	long long pw = start_of(s[2 * q], ox, w, ow, kw), ph = start_of(s[2 * q + 1], oy, h, oh, kh);
	float best = __int_as_float(0xff800000);
	long long bi = ph * w + pw;
	for (long long r = ph; r < ph + kh; r++)
		for (long long c = pw; c < pw + kw; c++) {
			float v = x[q * h * w + r * w + c];
			if (v > best || v != v) {
				best = v;
				bi = r * w + c;
			}
		}
	y[i] = (best > 0.0f || best != best) ? best : 0.0f; // BUG: relu after the argmax
	indices[i] = bi;
}
