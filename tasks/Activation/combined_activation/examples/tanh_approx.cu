// @kbx expect wrong
// Mistake: the fast-math activations __expf and the hardware tanh.approx.f32 (relative error ~2^-11): fine for bf16 outputs, but t * weight2 is then off by ~1e-4, far beyond the f32 tolerance 1e-5.
// @kbx launch combined_activation_f32<<<dim3(max(1, cdiv(dout, 16)), max(1, cdiv(n, 16))), dim3(16, 16)>>>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows)

extern "C" __global__ void combined_activation_f32(const float *__restrict__ input, const float *__restrict__ weight1,
						   const float *__restrict__ weight2, const float *__restrict__ bias,
						   float *__restrict__ y, long long n, long long din, long long dout,
						   long long w2_rows, long long bias_rows)
{
	long long r = (long long)blockIdx.y * 16 + threadIdx.y;
	long long c = (long long)blockIdx.x * 16 + threadIdx.x;
	if (r >= n || c >= dout)
		return;
	float z = 0.0f;
	for (long long k = 0; k < din; k++)
		z = fmaf(input[r * din + k], weight1[k * dout + c], z);
	float s = 1.0f / (1.0f + __expf(-z)), t;
	asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(s));
	float w = weight2[(w2_rows == 1 ? 0 : r) * dout + c];
	float b = bias[(bias_rows == 1 ? 0 : r) * dout + c];
	y[r * dout + c] = __fadd_rn(__fmul_rn(t, w), b);
}
