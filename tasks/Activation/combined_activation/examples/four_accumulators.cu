// @kbx expect pass
// Correct alternative: one thread per output, no shared memory; the dot product over din runs in four
// interleaved f32 accumulators (k % 4), summed pairwise at the end, a different summation order
// from the reference's single FMA chain (a CPU model puts the difference at ~0.2 of the tolerance).
// The epilogue uses the 1 / (1 + exp(-z)) sigmoid and tanhf, and m + bias as one fmaf (an ulp away
// from PyTorch's two roundings).
// @kbx launch combined_activation_f32<<<dim3(max(1, cdiv(dout, 32)), max(1, cdiv(n, 8))), dim3(32, 8)>>>(input, weight1, weight2, bias, y, n, din, dout, w2_rows, bias_rows)

extern "C" __global__ void combined_activation_f32(const float *__restrict__ input, const float *__restrict__ weight1,
						   const float *__restrict__ weight2, const float *__restrict__ bias,
						   float *__restrict__ y, long long n, long long din, long long dout,
						   long long w2_rows, long long bias_rows)
{
	long long r = (long long)blockIdx.y * 8 + threadIdx.y;
	long long c = (long long)blockIdx.x * 32 + threadIdx.x;
	if (r >= n || c >= dout)
		return;
	const float *a = input + r * din;
	float z0 = 0.0f, z1 = 0.0f, z2 = 0.0f, z3 = 0.0f;
	long long k = 0;
	for (; k + 4 <= din; k += 4) {
		z0 = fmaf(a[k], weight1[k * dout + c], z0);
		z1 = fmaf(a[k + 1], weight1[(k + 1) * dout + c], z1);
		z2 = fmaf(a[k + 2], weight1[(k + 2) * dout + c], z2);
		z3 = fmaf(a[k + 3], weight1[(k + 3) * dout + c], z3);
	}
	for (; k < din; k++)
		z0 = fmaf(a[k], weight1[k * dout + c], z0);
	float z = (z0 + z1) + (z2 + z3);
	float t = tanhf(1.0f / (1.0f + expf(-z)));
	float w = weight2[(w2_rows == 1 ? 0 : r) * dout + c];
	float b = bias[(bias_rows == 1 ? 0 : r) * dout + c];
	y[r * dout + c] = fmaf(t, w, b);
}
