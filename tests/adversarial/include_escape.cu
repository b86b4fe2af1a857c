// @kbx task Activation/gelu
// @kbx expect compile_error
// @kbx because #include "kbx/\.\./\.\./\.\./\.\./\.\./\.\./etc/passwd": path with '\.\.'
// Reaches outside the sandbox through the include path: the quoted include starts with "kbx/", as
// the gate requires, then climbs out with '..' to a file of the host (NVRTC would paste it into
// the compile log on the first syntax error). The include gate in core/nvrtc.c must reject it
// before NVRTC opens anything; no GPU is needed to decide it.
// @kbx launch gelu_leak<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

#include "kbx/../../../../../../etc/passwd"

extern "C" __global__ void gelu_leak(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
