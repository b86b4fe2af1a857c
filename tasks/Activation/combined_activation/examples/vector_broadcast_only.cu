// @kbx expect wrong
// Mistake: always reads weight2 and bias as [dout] vectors (the perf workload's shape), ignoring w2_rows / bias_rows: with the test's full [n, dout] tensors every row after the first uses row 0's values.
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
	float t = tanhf(1.0f / (1.0f + expf(-z)));
	y[r * dout + c] = __fadd_rn(__fmul_rn(t, weight2[c]), bias[c]);
}
