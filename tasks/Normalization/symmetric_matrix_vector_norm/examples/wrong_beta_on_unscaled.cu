// @kbx expect wrong
// Mistake: reads the formula as alpha * A x + beta * (A x) (the metadata's "y = alpha * mv(A, x) +
// beta * y" with y taken as A x); the function adds beta times the already scaled t = alpha * A x.
// Right only for alpha = 1: corner_alpha_beta, corner_3x3, p_inf_257, p3_1000 and size1 fail.
// @kbx scratch part f32 [max(1, cdiv(n, 256))]
// @kbx launch rows_wrong<<<max(1, cdiv(n, 256)), 256>>>(A, x, part, n, alpha, beta, p)
// @kbx launch finish_wrong<<<1, 1>>>(part, y, i64(max(1, cdiv(n, 256))), p)

extern "C" __global__ void rows_wrong(const float *A, const float *x, float *part, long long n, float alpha, float beta,
				      float p)
{
	__shared__ float sh[256];
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	float term = isinf(p) && p < 0.0f ? __int_as_float(0x7f800000) : 0.0f;
	if (i < n) {
		double s = 0.0;
		for (long long k = 0; k < n; k++)
			s += (double)A[k * n + i] * (double)x[k]; /* column i = row i: A is symmetric */
		float y = (float)s;
		float u = alpha * y + beta * y;
		float a = fabsf(u);
		term = p == 2.0f ? u * u : (p == 1.0f || isinf(p)) ? a : p == 0.0f ? (float)(u != 0.0f) : powf(a, p);
	}
	sh[threadIdx.x] = term;
	__syncthreads();
	if (threadIdx.x == 0) {
		float acc = sh[0];
		for (int k = 1; k < 256; k++)
			acc = isinf(p) ? (isnan(acc) || isnan(sh[k]) ? acc + sh[k] : (p > 0.0f ? fmaxf(acc, sh[k]) : fminf(acc, sh[k])))
				       : acc + sh[k];
		part[blockIdx.x] = acc;
	}
}

extern "C" __global__ void finish_wrong(const float *part, float *y, long long parts, float p)
{
	float acc = part[0];
	for (long long k = 1; k < parts; k++)
		acc = isinf(p) ? (isnan(acc) || isnan(part[k]) ? acc + part[k] : (p > 0.0f ? fmaxf(acc, part[k]) : fminf(acc, part[k])))
			       : acc + part[k];
	y[0] = p == 2.0f ? sqrtf(acc) : (p == 1.0f || p == 0.0f || isinf(p)) ? acc : powf(acc, 1.0f / p);
}
