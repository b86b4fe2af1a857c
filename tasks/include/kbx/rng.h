/*
 * kbx/rng.h - the counter-based random generator shared by the host and by kernels.
 *
 * Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
 * A draw is a pure function of (key, counter), so the host's input generator, reference
 * kernels and candidate kernels all produce the same numbers for the same (seed, index):
 * dropout masks and random draws compare exactly between candidate and reference.
 *
 * The same file compiles as C99 on the host and as CUDA C++ under NVRTC; it includes nothing.
 *
 * Kernel use, one independent uniform per element:
 *     float u = kbx_uniform(seed, i);        // in [0, 1), 24 random bits
 *     bool keep = u >= p;                    // dropout keeps with probability 1 - p
 */
#ifndef KBX_RNG_H
#define KBX_RNG_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KBX_RNG_FN static __host__ __device__ __forceinline__
#else
#define KBX_RNG_FN static inline
#endif

struct kbx_u4 {
	unsigned int x, y, z, w;
};

KBX_RNG_FN unsigned int kbx_mulhilo(unsigned int a, unsigned int b, unsigned int *hi)
{
	unsigned long long p = (unsigned long long)a * b;
	*hi = (unsigned int)(p >> 32);
	return (unsigned int)p;
}

/* Ten rounds of Philox 4x32 on counter c with key (k0, k1). */
KBX_RNG_FN struct kbx_u4 kbx_philox(struct kbx_u4 c, unsigned int k0, unsigned int k1)
{
	for (int r = 0; r < 10; r++) {
		unsigned int hi0, hi1;
		unsigned int lo0 = kbx_mulhilo(0xD2511F53u, c.x, &hi0);
		unsigned int lo1 = kbx_mulhilo(0xCD9E8D57u, c.z, &hi1);
		struct kbx_u4 n;
		n.x = hi1 ^ c.y ^ k0;
		n.y = lo1;
		n.z = hi0 ^ c.w ^ k1;
		n.w = lo0;
		c = n;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	return c;
}

/* Four 32-bit words for element `index` of stream `seed`. Word 0 is what kbx_bits32 returns. */
KBX_RNG_FN struct kbx_u4 kbx_draw4(unsigned long long seed, unsigned long long index)
{
	struct kbx_u4 c;
	c.x = (unsigned int)index;
	c.y = (unsigned int)(index >> 32);
	c.z = 0x6B627821u; /* "kbx!": separates our streams from other users of Philox */
	c.w = 0;
	return kbx_philox(c, (unsigned int)seed, (unsigned int)(seed >> 32));
}

KBX_RNG_FN unsigned int kbx_bits32(unsigned long long seed, unsigned long long index)
{
	return kbx_draw4(seed, index).x;
}

/* Uniform float in [0, 1) with 24 random bits: exactly representable, never 1. */
KBX_RNG_FN float kbx_uniform(unsigned long long seed, unsigned long long index)
{
	return (float)(kbx_bits32(seed, index) >> 8) * (1.0f / 16777216.0f);
}

/* Uniform double in [0, 1) with 53 random bits. */
KBX_RNG_FN double kbx_uniform_f64(unsigned long long seed, unsigned long long index)
{
	struct kbx_u4 r = kbx_draw4(seed, index);
	unsigned long long b = ((unsigned long long)r.x << 32 | r.y) >> 11;
	return (double)b * (1.0 / 9007199254740992.0);
}

/* A 64-bit stream key derived from a seed and a small integer (a layer, a stage). */
KBX_RNG_FN unsigned long long kbx_subseed(unsigned long long seed, unsigned long long salt)
{
	struct kbx_u4 r = kbx_draw4(seed ^ 0x5DEECE66DULL, salt);
	return (unsigned long long)r.z << 32 | r.w;
}

#endif
