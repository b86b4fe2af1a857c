// @kbx expect wrong
// Mistake: eps inside the square root, sqrt(square_avg + eps) (TensorFlow 1's RMSProp), where
// PyTorch adds it outside, sqrt(square_avg) + eps. Invisible while sqrt(square_avg) >> sqrt(eps) =
// 1e-4, but tiny_gradients (gradients ~1e-5) gets a tenfold smaller step.
// @kbx launch rmsprop_update<<<max(1, cdiv(n, 256)), 256>>>(param, grad, square_avg, n, lr, alpha, eps, weight_decay)

extern "C" __global__ void rmsprop_update(float *param, const float *grad, float *square_avg, long long n, double lr,
					  double alpha, double eps, double weight_decay)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i], g = grad[i];
	if (weight_decay != 0.0)
		g = fmaf((float)weight_decay, p, g);
	float v = fmaf((float)(1.0 - alpha), g * g, square_avg[i] * (float)alpha);
	square_avg[i] = v;
	param[i] = fmaf((float)(-lr), g / sqrtf(v + (float)eps), p);
}
