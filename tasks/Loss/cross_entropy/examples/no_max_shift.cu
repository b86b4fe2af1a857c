// @kbx expect wrong
// Mistake: no max shift. log(sum exp(x)) - x[t] overflows once a logit passes ~88 (exp = inf): the
// wide-logit and huge-value cases give inf or NaN where PyTorch's shifted log_softmax is finite.
// @kbx launch ce_simple<<<1, 1024>>>(input, target, weight, y, n, c, s, cw, ignore_index, reduction)

extern "C" __global__ void ce_simple(const float *__restrict__ input, const long long *__restrict__ target,
				     const float *__restrict__ weight, float *__restrict__ y, long long n, long long c,
				     long long s, long long cw, long long ignore_index, int reduction)
{
	__shared__ double sl[1024], sw[1024];
	double acc = 0.0, wacc = 0.0;
	for (long long pos = threadIdx.x; pos < n * s; pos += 1024) {
		long long i = pos / s, q = pos % s, t = target[pos];
		float l = 0.f, w = 0.f;
		if (t != ignore_index) {
			const float *row = input + i * c * s + q;
			float sum = 0.f;
			for (long long k = 0; k < c; k++)
				sum += expf(row[k * s]);
			w = cw > 0 ? weight[t] : 1.f;
			l = w * (logf(sum) - row[t * s]);
		}
		if (reduction == 0)
			y[pos] = l;
		acc += l;
		wacc += w;
	}
	sl[threadIdx.x] = acc;
	sw[threadIdx.x] = wacc;
	__syncthreads();
	for (int h = 512; h > 0; h >>= 1) {
		if (threadIdx.x < h) {
			sl[threadIdx.x] += sl[threadIdx.x + h];
			sw[threadIdx.x] += sw[threadIdx.x + h];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0 && reduction != 0)
		y[0] = (float)(reduction == 1 ? sl[0] / sw[0] : sl[0]);
}
