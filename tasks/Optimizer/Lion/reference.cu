// One Lion step (KernelBenchX's lion_step), f32, elementwise and memory bound: float4 loads and
// stores of param, grad and exp_avg in a grid-stride loop, then the n % 4 tail.
// Per element, in the function's order, each tensor op rounded to f32 (add with alpha contracted
// to one fma, as nvcc compiles PyTorch's a + alpha * b):
//   u = fma(f32(1 - beta1), g, m * beta1)        exp_avg.mul(beta1).add(grad, alpha=1 - beta1)
//   p = p * f32(1 - lr * wd)                     only if weight_decay != 0
//   p = fma(-lr, sign(u), p)                     sign: (u > 0) - (u < 0), so 0 for NaN and +-0
//   m = fma(f32(1 - beta2), g, m * beta2)        exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
// Expected accuracy: the same roundings as PyTorch; sign() makes param exact up to where u sits
// within an ulp of 0, which random data never hits.

// @kbx launch lion_update<<<max(1, min(cdiv(n, 1024), sms * 32)), 256>>>(param, grad, exp_avg, n, lr, beta1, beta2, weight_decay)

struct lion_consts {
	float b1, w1, b2, w2, decay, neg_lr;
	bool use_decay;
};

__device__ __forceinline__ void lion_element(float &p, float g, float &m, const lion_consts &c)
{
	float u = fmaf(c.w1, g, m * c.b1);
	float s = (float)(u > 0.0f) - (float)(u < 0.0f);
	if (c.use_decay)
		p = p * c.decay;
	p = fmaf(c.neg_lr, s, p);
	m = fmaf(c.w2, g, m * c.b2);
}

extern "C" __global__ void lion_update(float *__restrict__ param, const float *__restrict__ grad,
				       float *__restrict__ exp_avg, long long n, double lr, double beta1, double beta2,
				       double weight_decay)
{
	lion_consts c;
	c.b1 = (float)beta1;
	c.w1 = (float)(1.0 - beta1);
	c.b2 = (float)beta2;
	c.w2 = (float)(1.0 - beta2);
	c.use_decay = weight_decay != 0.0;
	c.decay = (float)(1.0 - lr * weight_decay);
	c.neg_lr = (float)(-lr);

	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	float4 *p4 = reinterpret_cast<float4 *>(param);
	const float4 *g4 = reinterpret_cast<const float4 *>(grad);
	float4 *m4 = reinterpret_cast<float4 *>(exp_avg);
	for (long long k = tid; k < n4; k += stride) {
		float4 p = p4[k], g = g4[k], m = m4[k];
		lion_element(p.x, g.x, m.x, c);
		lion_element(p.y, g.y, m.y, c);
		lion_element(p.z, g.z, m.z, c);
		lion_element(p.w, g.w, m.w, c);
		p4[k] = p;
		m4[k] = m;
	}
	long long i = n4 * 4 + tid;
	if (i < n) {
		float p = param[i], m = exp_avg[i];
		lion_element(p, grad[i], m, c);
		param[i] = p;
		exp_avg[i] = m;
	}
}
