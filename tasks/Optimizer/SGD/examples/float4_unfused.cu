// @kbx expect pass
// Correct alternative: float4 loads and stores in a grid-stride loop plus a scalar tail, and every
// a + alpha * b as a separately rounded multiply and add (__fmul_rn, __fadd_rn: no fma), a last-bit
// difference from PyTorch, far inside 1e-5.
// @kbx launch sgd_step_f32<<<max(1, min(cdiv(n, 1024), sms * 64)), 256>>>(param, grad, momentum_buffer, n, lr, momentum, weight_decay, dampening, nesterov)

__device__ __forceinline__ void step(float &p, float g, float *buf, float lr, float momentum, float weight_decay,
				     float dampening, int nesterov)
{
	if (weight_decay != 0.0f)
		g = __fadd_rn(g, __fmul_rn(weight_decay, p));
	if (momentum > 0.0f) {
		float b = __fadd_rn(__fmul_rn(*buf, momentum), __fmul_rn(1.0f - dampening, g));
		*buf = b;
		g = nesterov ? __fadd_rn(g, __fmul_rn(momentum, b)) : b;
	}
	p = __fsub_rn(p, __fmul_rn(lr, g));
}

extern "C" __global__ void sgd_step_f32(float *__restrict__ param, const float *__restrict__ grad,
					float *__restrict__ momentum_buffer, long long n, float lr, float momentum,
					float weight_decay, float dampening, int nesterov)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	float4 *p4 = reinterpret_cast<float4 *>(param);
	const float4 *g4 = reinterpret_cast<const float4 *>(grad);
	float4 *b4 = reinterpret_cast<float4 *>(momentum_buffer);
	bool use_buf = momentum > 0.0f;
	for (long long v = tid; v < n4; v += stride) {
		float4 p = p4[v];
		float4 g = g4[v];
		float4 b = use_buf ? b4[v] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		step(p.x, g.x, &b.x, lr, momentum, weight_decay, dampening, nesterov);
		step(p.y, g.y, &b.y, lr, momentum, weight_decay, dampening, nesterov);
		step(p.z, g.z, &b.z, lr, momentum, weight_decay, dampening, nesterov);
		step(p.w, g.w, &b.w, lr, momentum, weight_decay, dampening, nesterov);
		p4[v] = p;
		if (use_buf)
			b4[v] = b;
	}
	for (long long i = n4 * 4 + tid; i < n; i += stride) {
		float p = param[i];
		float b = use_buf ? momentum_buffer[i] : 0.0f;
		step(p, grad[i], &b, lr, momentum, weight_decay, dampening, nesterov);
		param[i] = p;
		if (use_buf)
			momentum_buffer[i] = b;
	}
}
