// @kbx task Math/add
// @kbx expect wrong
// @kbx because wrote outside buffer 'out' \(guard zone before the start
// Out-of-bounds write BEFORE the start of the output. The kernel walks the arrays from the end
// (j = n - 1 - i) but bounds-checks the wrong end (j >= n, never true), so the padding threads of
// the last block get j < 0 and write out[-1], out[-2], ... (at most 255 elements before the start,
// inside the 64 KiB guard zone, so nothing faults). Every element of out is right; only the guard
// zone in front of 'out' shows the bug. The reads of input[j] and other[j] for j < 0 land in the
// guard zones of the inputs and are harmless.
// @kbx launch add_reversed<<<max(1, cdiv(n, 256)), 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void add_reversed(const float *input, const float *other, float *out, long long n,
					long long m, float alpha)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long j = n - 1 - i;
	if (j >= n) /* should be j < 0 */
		return;
	float b = m == 1 ? other[0] : other[j];
	out[j] = input[j] + alpha * b;
}
