// One step of torch.optim.Adam (the default foreach implementation on CUDA), f32 tensors.
//
// adam_advance_step (one thread) does what PyTorch does on the host: step += 1 (an f32 add, as on
// the f32 state["step"] tensor), then in f64 bias_correction1 = 1 - beta1^t,
// bias_correction2 = 1 - beta2^t, step_size = -(lr / bias_correction1) and
// sqrt(bias_correction2); the two scalars that reach the tensor ops are rounded to f32 and left in
// the scratch buffer coef. A separate launch, so that every block of the update sees the new t.
//
// adam_update is elementwise and memory bound: float4 loads and stores of the four tensors in a
// grid-stride loop, then the n % 4 tail. Per element, in PyTorch's order, each op rounded to f32:
//   g = fma(wd, p, g)                       only if weight_decay != 0 (_foreach_add, alpha)
//   m = lerp(m, g, 1 - beta1)               (_foreach_lerp_: m + w (g - m), or g - (g - m)(1 - w))
//   v = fma(1 - beta2, g * g, v * beta2)    (_foreach_mul_, _foreach_addcmul_)
//   d = sqrt(v) / sqrt(bc2) + eps           (_foreach_sqrt, _foreach_div_, _foreach_add_)
//   p = fma(step_size, m / d, p)            (_foreach_addcdiv_)
// Expected accuracy: identical to PyTorch's foreach path up to how nvcc contracted its
// expressions (at most an ulp or two per op); the fused and single-tensor implementations
// PyTorch also ships differ from it by as much, far inside rtol = atol = 1e-5.

// @kbx scratch coef f32 [2]
// @kbx launch adam_advance_step<<<1, 32>>>(step, coef, lr, beta1, beta2)
// @kbx launch adam_update<<<max(1, min(cdiv(n, 1024), sms * 32)), 256>>>(param, grad, exp_avg, exp_avg_sq, coef, n, beta1, beta2, eps, weight_decay)

extern "C" __global__ void adam_advance_step(float *__restrict__ step, float *__restrict__ coef, double lr,
					     double beta1, double beta2)
{
	if (threadIdx.x != 0)
		return;
	float s = step[0] + 1.0f;
	step[0] = s;
	double t = (double)s;
	double bias_correction1 = 1.0 - pow(beta1, t);
	double bias_correction2 = 1.0 - pow(beta2, t);
	coef[0] = (float)(-(lr / bias_correction1));
	coef[1] = (float)sqrt(bias_correction2);
}

struct adam_consts {
	float wd, w1, one_minus_w1, b2, w2, eps, step_size, bc2_sqrt;
	bool decay, small_w1;
};

__device__ __forceinline__ void adam_element(float &p, float g, float &m, float &v, const adam_consts &c)
{
	if (c.decay)
		g = fmaf(c.wd, p, g);
	float diff = g - m;
	m = c.small_w1 ? fmaf(c.w1, diff, m) : fmaf(-diff, c.one_minus_w1, g);
	v = fmaf(c.w2, g * g, v * c.b2);
	float d = sqrtf(v) / c.bc2_sqrt;
	d = d + c.eps;
	p = fmaf(c.step_size, m / d, p);
}

extern "C" __global__ void adam_update(float *__restrict__ param, const float *__restrict__ grad,
				       float *__restrict__ exp_avg, float *__restrict__ exp_avg_sq,
				       const float *__restrict__ coef, long long n, double beta1, double beta2,
				       double eps, double weight_decay)
{
	adam_consts c;
	c.decay = weight_decay != 0.0;
	c.wd = (float)weight_decay;
	c.w1 = (float)(1.0 - beta1);
	c.small_w1 = fabsf(c.w1) < 0.5f;
	c.one_minus_w1 = 1.0f - c.w1;
	c.b2 = (float)beta2;
	c.w2 = (float)(1.0 - beta2);
	c.eps = (float)eps;
	c.step_size = coef[0];
	c.bc2_sqrt = coef[1];

	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	float4 *p4 = reinterpret_cast<float4 *>(param);
	const float4 *g4 = reinterpret_cast<const float4 *>(grad);
	float4 *m4 = reinterpret_cast<float4 *>(exp_avg);
	float4 *v4 = reinterpret_cast<float4 *>(exp_avg_sq);
	for (long long k = tid; k < n4; k += stride) {
		float4 p = p4[k], g = g4[k], m = m4[k], v = v4[k];
		adam_element(p.x, g.x, m.x, v.x, c);
		adam_element(p.y, g.y, m.y, v.y, c);
		adam_element(p.z, g.z, m.z, v.z, c);
		adam_element(p.w, g.w, m.w, v.w, c);
		p4[k] = p;
		m4[k] = m;
		v4[k] = v;
	}
	long long i = n4 * 4 + tid;
	if (i < n) {
		float p = param[i], m = exp_avg[i], v = exp_avg_sq[i];
		adam_element(p, grad[i], m, v, c);
		param[i] = p;
		exp_avg[i] = m;
		exp_avg_sq[i] = v;
	}
}
