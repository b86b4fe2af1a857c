// @kbx expect wrong
// Mistake: uses the Maclaurin series for every x. In f32 it cancels catastrophically for |x| beyond ~3 (Ai(-10) and Ai(10) come out wrong) and never returns NaN for +-inf.
// @kbx launch airy_ai_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void airy_ai_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float z = v * v * v;
	float f = 1.0f, g = v, m = 1.0f, t = v, k = 1.0f;
	for (int it = 0; it < 40; it++) {
		m = m * z / ((k + 1.0f) * (k + 2.0f));
		t = t * z / ((k + 2.0f) * (k + 3.0f));
		f += m;
		g += t;
		k += 3.0f;
	}
	y[i] = 0.355028053887817239260f * f - 0.258819403792806798405f * g;
}
