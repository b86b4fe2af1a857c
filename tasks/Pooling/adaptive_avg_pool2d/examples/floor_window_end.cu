// @kbx expect wrong
// Mistake: window bounds. Ends each window at floor((o + 1) * h / oh) instead of the ceiling, so windows
// never overlap and drop a row or column whenever oh does not divide h (the test's 8 x 9 -> 5 x 5 and
// 5 x 7 already).
// @kbx launch aap_floor<<<max(1, cdiv(p * oh * ow, 256)), 256>>>(x, y, p, h, w, oh, ow)

extern "C" __global__ void aap_floor(const float *__restrict__ x, float *__restrict__ y, long long p, long long h,
				     long long w, long long oh, long long ow)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= p * oh * ow)
		return;
	long long ox = o % ow, oy = (o / ow) % oh, plane = o / (ow * oh);
	long long h0 = oy * h / oh, h1 = (oy + 1) * h / oh;
	long long w0 = ox * w / ow, w1 = (ox + 1) * w / ow;
	if (h1 == h0)
		h1 = h0 + 1;
	if (w1 == w0)
		w1 = w0 + 1;
	float sum = 0.f;
	for (long long iy = h0; iy < h1; iy++)
		for (long long ix = w0; ix < w1; ix++)
			sum += x[(plane * h + iy) * w + ix];
	y[o] = sum / (float)((h1 - h0) * (w1 - w0));
}
