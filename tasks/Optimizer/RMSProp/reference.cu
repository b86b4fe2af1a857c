// One RMSProp step (KernelBenchX's rmsprop_step), f32, elementwise and memory bound: float4 loads
// and stores of param, grad and square_avg in a grid-stride loop, then the n % 4 tail.
// Per element, in the function's order, each tensor op rounded to f32 (PyTorch's add, addcmul and
// addcdiv evaluate a + alpha * op(b, c) as one fma when alpha != 1):
//   g = fma(wd, p, g)                          only if weight_decay != 0 (grad.add(param, alpha))
//   v = fma(f32(1 - alpha), g * g, v * alpha)   square_avg.mul_(alpha).addcmul_(grad, grad, value)
//   d = sqrt(v) + eps                          square_avg.sqrt().add(eps)
//   p = fma(-lr, g / d, p)                     param.addcdiv_(grad, avg, value=-lr)
// Expected accuracy: PyTorch's roundings exactly, up to nvcc's contraction choices.

// @kbx launch rmsprop_update<<<max(1, min(cdiv(n, 1024), sms * 32)), 256>>>(param, grad, square_avg, n, lr, alpha, eps, weight_decay)

struct rmsprop_consts {
	float wd, alpha, w, eps, neg_lr;
	bool decay;
};

__device__ __forceinline__ void rmsprop_element(float &p, float g, float &v, const rmsprop_consts &c)
{
	if (c.decay)
		g = fmaf(c.wd, p, g);
	v = fmaf(c.w, g * g, v * c.alpha);
	float d = sqrtf(v) + c.eps;
	p = fmaf(c.neg_lr, g / d, p);
}

extern "C" __global__ void rmsprop_update(float *__restrict__ param, const float *__restrict__ grad,
					  float *__restrict__ square_avg, long long n, double lr, double alpha,
					  double eps, double weight_decay)
{
	rmsprop_consts c;
	c.decay = weight_decay != 0.0;
	c.wd = (float)weight_decay;
	c.alpha = (float)alpha;
	c.w = (float)(1.0 - alpha);
	c.eps = (float)eps;
	c.neg_lr = (float)(-lr);

	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	float4 *p4 = reinterpret_cast<float4 *>(param);
	const float4 *g4 = reinterpret_cast<const float4 *>(grad);
	float4 *v4 = reinterpret_cast<float4 *>(square_avg);
	for (long long k = tid; k < n4; k += stride) {
		float4 p = p4[k], g = g4[k], v = v4[k];
		rmsprop_element(p.x, g.x, v.x, c);
		rmsprop_element(p.y, g.y, v.y, c);
		rmsprop_element(p.z, g.z, v.z, c);
		rmsprop_element(p.w, g.w, v.w, c);
		p4[k] = p;
		v4[k] = v;
	}
	long long i = n4 * 4 + tid;
	if (i < n) {
		float p = param[i], v = square_avg[i];
		rmsprop_element(p, grad[i], v, c);
		param[i] = p;
		square_avg[i] = v;
	}
}
