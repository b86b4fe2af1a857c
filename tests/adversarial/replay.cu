// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because (device global .* no longer holds its load-time value|second run on the same inputs (is wrong|gave different bits))
// Planted bug: "caches" its result. Called again with the same input pointer and size, it does
// nothing and leaves whatever the output holds: during timing, the previous call's correct result,
// so it would time as impossibly fast. The second correctness run (outputs poisoned again) must
// expose it.
// @kbx launch gelu_replay<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
// @kbx launch gelu_replay_mark<<<1, 1>>>(x, n)
__device__ const float *last_x;
__device__ long long last_n = -1;

extern "C" __global__ void gelu_replay(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;

	if ((last_x == x && last_n == n) || i >= n)
		return;
	float v = x[i];
	y[i] = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
			   : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
}

extern "C" __global__ void gelu_replay_mark(const float *x, long long n)
{
	last_x = x;
	last_n = n;
}
