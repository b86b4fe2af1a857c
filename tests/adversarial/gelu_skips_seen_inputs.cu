// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because device global .*no longer holds its load-time value|perf row [0-9]+ .*GB/s, above the ceiling of [0-9]+ GB/s
// @kbx args --rows 1
// Planted cheat that no reset between timed calls can stop: it remembers the inputs it has seen
// in a __device__ ring of fingerprints (the size, the form and five sampled elements of x), which
// survives every poisoning, and computes only the first four times it sees the same inputs (a
// correctness run and its second run, the check at a perf size, the check after timing: each sees
// fresh inputs at most twice, and two cases could share theirs). From the fifth sighting on it
// writes nothing: under timing, whose calls rotate among three input sets, nearly every call is
// empty, and its outputs are never looked at there. Only the ceiling can tell: moving at least the 1 GiB of x and y of the largest row in
// microseconds is far above what the memory allows, so the verdict is impossible_timing, not pass.
// Since mutable device globals are read back after a call (doc/trust.md), its ring is caught
// earlier: the first case's call leaves it changed, so the verdict is wrong before any timing.
// @kbx scratch skip i32 [1]
// @kbx launch gelu_sightings<<<1, 1>>>(x, skip, n, approximate)
// @kbx launch gelu_unless_seen<<<max(1, min(cdiv(n, 256), sms * 32)), 256>>>(x, y, skip, n, approximate)

#define RING 32

__device__ unsigned long long seen_print[RING];
__device__ int seen_count[RING];
__device__ int seen_next;

extern "C" __global__ void gelu_sightings(const float *x, int *skip, long long n, int approximate)
{
	unsigned long long p = (1469598103934665603ull ^ (unsigned long long)n) * 1099511628211ull ^ (unsigned)approximate;
	int i, hit = -1;

	for (i = 0; n > 0 && i < 5; i++)
		p = (p ^ __float_as_uint(x[(n - 1) * i / 4])) * 1099511628211ull;
	for (i = 0; i < RING; i++)
		if (seen_count[i] > 0 && seen_print[i] == p)
			hit = i;
	if (hit < 0) {
		hit = seen_next;
		seen_next = (seen_next + 1) % RING;
		seen_print[hit] = p;
		seen_count[hit] = 0;
	}
	seen_count[hit]++;
	*skip = seen_count[hit] > 4;
}

extern "C" __global__ void gelu_unless_seen(const float *x, float *y, const int *skip, long long n, int approximate)
{
	if (*skip)
		return;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float v = x[i];

		y[i] = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
				   : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
	}
}
