// @kbx task Math/add
// @kbx expect pass
// @kbx args --rows 2
// Correct, written in an unusual way: its work depends on the buffers' addresses. The float4 path
// runs only when all three pointers are 16-byte aligned (else one element per thread), and the
// order in which blocks take the chunks is rotated by a hash of the three addresses. Every set of
// buffers kbx times it on has other addresses (the timed calls rotate among several input sets),
// so it takes other block orders there; its results do not depend on them, and it must pass,
// timed and checked after timing.
// @kbx launch add_by_address<<<max(1, min(cdiv(n, 1024), sms * 16)), 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void add_by_address(const float *input, const float *other, float *out, long long n, long long m,
					  float alpha)
{
	unsigned long long pa = (unsigned long long)input, pb = (unsigned long long)other, po = (unsigned long long)out;
	unsigned long long h = (pa >> 8) * 0x9e3779b97f4a7c15ull ^ (pb >> 8) * 0xc2b2ae3d27d4eb4full ^ (po >> 8);
	int vec = ((pa | po) & 15) == 0 && (m == 1 || (pb & 15) == 0);
	long long width = vec ? 4 : 1, chunks = (n + 1023) / 1024, shift = (long long)(h % (unsigned long long)gridDim.x);

	for (long long ch = ((long long)blockIdx.x + shift) % gridDim.x; ch < chunks; ch += gridDim.x) {
		long long base = ch * 1024;

		for (long long i = base + (long long)threadIdx.x * width; i < base + 1024 && i < n; i += 256 * width) {
			if (vec && i + 3 < n) {
				float4 a = *reinterpret_cast<const float4 *>(input + i), r;
				float4 b = m == 1 ? make_float4(other[0], other[0], other[0], other[0])
						  : *reinterpret_cast<const float4 *>(other + i);

				r.x = a.x + alpha * b.x;
				r.y = a.y + alpha * b.y;
				r.z = a.z + alpha * b.z;
				r.w = a.w + alpha * b.w;
				*reinterpret_cast<float4 *>(out + i) = r;
			} else {
				for (long long j = i; j < i + width && j < n; j++)
					out[j] = input[j] + alpha * other[m == 1 ? 0 : j];
			}
		}
	}
}
