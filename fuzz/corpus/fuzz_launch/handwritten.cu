// a candidate with every form of directive
#include <cuda_fp16.h>
// @kbx expect pass
// @kbx scratch rowmax f32 [m]
//@kbx scratch tmp f64 []
// @kbx scratch w i32 [n, cdiv(k, 8)] packs s4
	//   @kbx launch row_max<<<m, 256, 256 * 4>>>(x, rowmax, m, n)
// @kbx launch softmax_out<<<dim3(cdiv(n, 256), m), dim3(32, 8, 1)>>>(x, rowmax, y, i64(m * n), f32(0.5), f64(1e-5))
// @kbx launch solve<<<sms, 512>>>(a, b, tmp, i32(n % 7), min(m, n)) cooperative
extern "C" __global__ void row_max(const float *x, float *rowmax, long m, long n) {}
