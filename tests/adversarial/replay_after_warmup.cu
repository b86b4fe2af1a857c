// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because (device global .* no longer holds its load-time value|wrong on fresh inputs after timing)
// @kbx args --rows 2
// Planted bug: a patient replayer. It computes honestly for the first 50 calls on a buffer
// (so both correctness runs pass), then stops computing and leaves the previous result in place:
// under timing it looks far faster than it is. Only the check on fresh inputs after timing (same
// buffers, new values) can expose it; run with perf rows.
// @kbx launch gelu_patient<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
// @kbx launch gelu_patient_count<<<1, 1>>>(x, n)
__device__ const float *seen_x;
__device__ long long seen_n = -1, seen_calls;

extern "C" __global__ void gelu_patient(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

	if ((seen_x == x && seen_n == n && seen_calls >= 50) || i >= n)
		return;
	float v = x[i];
	y[i] = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
			   : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
}

extern "C" __global__ void gelu_patient_count(const float *x, long long n)
{
	if (seen_x == x && seen_n == n) {
		seen_calls++;
	} else {
		seen_x = x;
		seen_n = n;
		seen_calls = 1;
	}
}
