// One AdamW step (KernelBenchX's adamw_step), f32 tensors, an i64 step counter.
//
// adamw_advance_step (one thread): step += 1, then what the function computes in Python floats
// (f64) from t = step: bias_correction1 = 1 - beta1^t, step_size = lr / bias_correction1,
// bias_correction2_sqrt = (1 - beta2^t)^0.5. Two f32 scalars go to the scratch buffer coef:
// -step_size, rounded to f32 as addcdiv_'s value, and 1 / f32(bias_correction2_sqrt) computed in
// f32, because PyTorch's CUDA division of a tensor by a Python number multiplies by the f32
// reciprocal. A separate launch, so that every block of the update sees the new t.
//
// adamw_update is elementwise and memory bound: float4 loads and stores in a grid-stride loop,
// then the n % 4 tail. Per element, in the function's order, each tensor op rounded to f32
// (a + alpha * b of add_ / addcmul_ / addcdiv_ contracted to one fma as nvcc does):
//   p = p * f32(1 - lr * wd)                  param.mul_
//   m = fma(f32(1 - beta1), g, m * beta1)      exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
//   v = fma(f32(1 - beta2), g * g, v * beta2)  exp_avg_sq.mul_(beta2).addcmul_(grad, grad, ...)
//   d = sqrt(v) * inv_bc2_sqrt + eps           (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
//   p = fma(-step_size, m / d, p)              param.addcdiv_(exp_avg, denom, value=-step_size)
// Expected accuracy: the same roundings as PyTorch up to nvcc's contraction choices, an ulp or
// two per op, far inside rtol = atol = 1e-5.

// @kbx scratch coef f32 [2]
// @kbx launch adamw_advance_step<<<1, 32>>>(step, coef, lr, beta1, beta2)
// @kbx launch adamw_update<<<max(1, min(cdiv(n, 1024), sms * 32)), 256>>>(param, grad, exp_avg, exp_avg_sq, coef, n, lr, beta1, beta2, eps, weight_decay)

extern "C" __global__ void adamw_advance_step(long long *__restrict__ step, float *__restrict__ coef, double lr,
					      double beta1, double beta2)
{
	if (threadIdx.x != 0)
		return;
	long long s = step[0] + 1;
	step[0] = s;
	double t = (double)s;
	double bias_correction1 = 1.0 - pow(beta1, t);
	double bias_correction2 = 1.0 - pow(beta2, t);
	coef[0] = (float)(-(lr / bias_correction1));
	coef[1] = 1.0f / (float)sqrt(bias_correction2);
}

struct adamw_consts {
	float decay, b1, w1, b2, w2, eps, neg_step_size, inv_bc2_sqrt;
};

__device__ __forceinline__ void adamw_element(float &p, float g, float &m, float &v, const adamw_consts &c)
{
	p = p * c.decay;
	m = fmaf(c.w1, g, m * c.b1);
	v = fmaf(c.w2, g * g, v * c.b2);
	float d = __fmul_rn(sqrtf(v), c.inv_bc2_sqrt); /* two kernels in PyTorch: no fma with + eps */
	d = d + c.eps;
	p = fmaf(c.neg_step_size, m / d, p);
}

extern "C" __global__ void adamw_update(float *__restrict__ param, const float *__restrict__ grad,
					float *__restrict__ exp_avg, float *__restrict__ exp_avg_sq,
					const float *__restrict__ coef, long long n, double lr, double beta1,
					double beta2, double eps, double weight_decay)
{
	adamw_consts c;
	c.decay = (float)(1.0 - lr * weight_decay);
	c.b1 = (float)beta1;
	c.w1 = (float)(1.0 - beta1);
	c.b2 = (float)beta2;
	c.w2 = (float)(1.0 - beta2);
	c.eps = (float)eps;
	c.neg_step_size = coef[0];
	c.inv_bc2_sqrt = coef[1];

	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	float4 *p4 = reinterpret_cast<float4 *>(param);
	const float4 *g4 = reinterpret_cast<const float4 *>(grad);
	float4 *m4 = reinterpret_cast<float4 *>(exp_avg);
	float4 *v4 = reinterpret_cast<float4 *>(exp_avg_sq);
	for (long long k = tid; k < n4; k += stride) {
		float4 p = p4[k], g = g4[k], m = m4[k], v = v4[k];
		adamw_element(p.x, g.x, m.x, v.x, c);
		adamw_element(p.y, g.y, m.y, v.y, c);
		adamw_element(p.z, g.z, m.z, v.z, c);
		adamw_element(p.w, g.w, m.w, v.w, c);
		p4[k] = p;
		m4[k] = m;
		v4[k] = v;
	}
	long long i = n4 * 4 + tid;
	if (i < n) {
		float p = param[i], m = exp_avg[i], v = exp_avg_sq[i];
		adamw_element(p, grad[i], m, v, c);
		param[i] = p;
		exp_avg[i] = m;
		exp_avg_sq[i] = v;
	}
}
