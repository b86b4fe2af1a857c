#include "dtype.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct dtype_info {
	const char *name;
	size_t bytes;
	int is_float;
	int is_signed;
};

static const struct dtype_info dtype_table[DT_COUNT] = {
#define DTYPE_INFO(id, name, bytes, fl, sg) [id] = { name, bytes, fl, sg },
	DTYPE_LIST(DTYPE_INFO)
#undef DTYPE_INFO
};

enum kbx_status dtype_parse(const char *name, enum dtype *out)
{
	int i;

	for (i = 0; i < DT_COUNT; i++) {
		if (strcmp(name, dtype_table[i].name) == 0) {
			*out = (enum dtype)i;
			return KBX_OK;
		}
	}
	return kbx_error(KBX_EPARSE, "unknown dtype '%s' (expected f32, f64, f16, bf16, i8, u8, i16, i32, i64, "
				     "bool or c64)", name);
}

const char *dtype_name(enum dtype dt)
{
	return (unsigned)dt < DT_COUNT ? dtype_table[dt].name : "?";
}

size_t dtype_size(enum dtype dt)
{
	return (unsigned)dt < DT_COUNT ? dtype_table[dt].bytes : 0;
}

int dtype_is_float(enum dtype dt)
{
	return (unsigned)dt < DT_COUNT ? dtype_table[dt].is_float : 0;
}

int dtype_components(enum dtype dt)
{
	return dt == DT_C64 ? 2 : 1;
}

/* ---- narrow floats --------------------------------------------------------------------- */

static uint64_t double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/*
 * Round a double to a binary format with `ebits` exponent bits and `mbits` stored mantissa bits
 * (IEEE layout, sign on top), round to nearest, ties to even, in one step: going through float
 * first would round twice and miss some ties. NaN keeps its sign and the top payload bits and is
 * made quiet; overflow gives infinity; results below the normal range become denormals.
 */
static uint32_t round_double_to(double d, int ebits, int mbits)
{
	uint64_t bits = double_bits(d);
	uint32_t sign = (uint32_t)(bits >> 63) << (ebits + mbits);
	int dexp = (int)((bits >> 52) & 0x7ff);
	uint64_t m = bits & ((1ULL << 52) - 1);
	int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, emax_biased = (1 << ebits) - 1;
	int e2, ex, k, shift, bitlen;
	uint64_t q;

	if (dexp == 0x7ff) {
		uint32_t inf = (uint32_t)emax_biased << mbits;

		if (m == 0)
			return sign | inf;
		return sign | inf | (1u << (mbits - 1)) | (uint32_t)(m >> (52 - mbits));
	}
	if (dexp == 0 && m == 0)
		return sign;
	/* |d| = m * 2^e2 with m an integer */
	if (dexp == 0) {
		e2 = -1074;
	} else {
		m |= 1ULL << 52;
		e2 = dexp - 1075;
	}
	bitlen = 64 - __builtin_clzll(m);
	ex = bitlen - 1 + e2; /* floor(log2 |d|) */
	k = ex > emin ? ex : emin;
	/* q = |d| / 2^(k - mbits), rounded */
	shift = e2 - k + mbits;
	if (shift >= 0) {
		q = m << shift;
	} else if (-shift >= 54) {
		q = 0; /* below half the smallest quantum (m < 2^53): rounds to zero */
	} else {
		int rs = -shift;
		uint64_t rem = m & ((1ULL << rs) - 1), half = 1ULL << (rs - 1);

		q = m >> rs;
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	if (q >> (mbits + 1)) {
		q >>= 1;
		k++;
	}
	if (q >> mbits) {
		int biased = k + bias;

		if (biased >= emax_biased)
			return sign | (uint32_t)emax_biased << mbits;
		return sign | (uint32_t)biased << mbits | (uint32_t)(q & ((1ULL << mbits) - 1));
	}
	return sign | (uint32_t)q; /* denormal (or zero) */
}

static double narrow_to_double(uint32_t h, int ebits, int mbits)
{
	int sign = (h >> (ebits + mbits)) & 1;
	int e = (int)((h >> mbits) & ((1u << ebits) - 1));
	uint32_t m = h & ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1;
	double v;

	if (e == (1 << ebits) - 1) {
		if (m == 0)
			return sign ? -INFINITY : INFINITY;
		/* Keep the payload: put the mantissa bits at the top of a double NaN. */
		uint64_t u = (uint64_t)sign << 63 | 0x7ffULL << 52 | (uint64_t)m << (52 - mbits) | 1ULL << 51;
		memcpy(&v, &u, sizeof(v));
		return v;
	}
	if (e == 0)
		v = ldexp((double)m, 1 - bias - mbits);
	else
		v = ldexp((double)(m | 1u << mbits), e - bias - mbits);
	return sign ? -v : v;
}

static uint16_t double_to_f16(double d)
{
	return (uint16_t)round_double_to(d, 5, 10);
}

static uint16_t double_to_bf16(double d)
{
	return (uint16_t)round_double_to(d, 8, 7);
}

float f16_to_f32(uint16_t h)
{
	return (float)narrow_to_double(h, 5, 10);
}

uint16_t f32_to_f16(float f)
{
	return double_to_f16((double)f);
}

float bf16_to_f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	/* bf16 is the top half of an f32: exact, NaN payload included. */
	memcpy(&f, &u, sizeof(f));
	return f;
}

uint16_t f32_to_bf16(float f)
{
	return double_to_bf16((double)f);
}

/* ---- element access -------------------------------------------------------------------- */

double dtype_get(enum dtype dt, const void *base, size_t i, int c)
{
	switch (dt) {
	case DT_F32: return ((const float *)base)[i];
	case DT_F64: return ((const double *)base)[i];
	case DT_F16: return narrow_to_double(((const uint16_t *)base)[i], 5, 10);
	case DT_BF16: return narrow_to_double(((const uint16_t *)base)[i], 8, 7);
	case DT_I8: return ((const int8_t *)base)[i];
	case DT_U8: return ((const uint8_t *)base)[i];
	case DT_I16: return ((const int16_t *)base)[i];
	case DT_I32: return ((const int32_t *)base)[i];
	case DT_I64: return (double)((const int64_t *)base)[i];
	/* The stored byte as it is, not normalised to 0/1: a kernel that leaves poison (0xA5) or
	 * writes 2 into a bool output must show up as a mismatch. */
	case DT_BOOL: return ((const uint8_t *)base)[i];
	case DT_C64: return ((const float *)base)[2 * i + (c ? 1 : 0)];
	case DT_COUNT: break;
	}
	return NAN;
}

/* Saturate to [lo, hi], then truncate toward zero; NaN becomes 0. */
static long long saturate(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	if (v <= lo)
		return (long long)lo;
	if (v >= hi)
		return (long long)hi;
	return (long long)v;
}

void dtype_set(enum dtype dt, void *base, size_t i, int c, double v)
{
	switch (dt) {
	case DT_F32: ((float *)base)[i] = (float)v; return;
	case DT_F64: ((double *)base)[i] = v; return;
	case DT_F16: ((uint16_t *)base)[i] = double_to_f16(v); return;
	case DT_BF16: ((uint16_t *)base)[i] = double_to_bf16(v); return;
	case DT_I8: ((int8_t *)base)[i] = (int8_t)saturate(v, INT8_MIN, INT8_MAX); return;
	case DT_U8: ((uint8_t *)base)[i] = (uint8_t)saturate(v, 0, UINT8_MAX); return;
	case DT_I16: ((int16_t *)base)[i] = (int16_t)saturate(v, INT16_MIN, INT16_MAX); return;
	case DT_I32: ((int32_t *)base)[i] = (int32_t)saturate(v, INT32_MIN, INT32_MAX); return;
	case DT_I64:
		/* INT64_MAX is not a double; 2^63 is the first value out of range. */
		if (isnan(v))
			((int64_t *)base)[i] = 0;
		else if (v >= 9223372036854775808.0)
			((int64_t *)base)[i] = INT64_MAX;
		else if (v <= -9223372036854775808.0)
			((int64_t *)base)[i] = INT64_MIN;
		else
			((int64_t *)base)[i] = (int64_t)v;
		return;
	case DT_BOOL: ((uint8_t *)base)[i] = v != 0; return;
	case DT_C64: ((float *)base)[2 * i + (c ? 1 : 0)] = (float)v; return;
	case DT_COUNT: break;
	}
}

/* ---- ULP distance ---------------------------------------------------------------------- */

/* Map a sign-magnitude bit pattern to an integer whose order is the order of the values, with
 * -0 and +0 both at 0, so that the distance between two keys counts the representable values
 * between them. */
static int64_t ordered_key(uint64_t bits, int width)
{
	uint64_t sign = 1ULL << (width - 1);
	uint64_t mag = bits & (sign - 1);

	return (bits & sign) ? -(int64_t)mag : (int64_t)mag;
}

static double key_distance(int64_t a, int64_t b)
{
	/* In unsigned arithmetic: two f64 keys can be almost 2^64 apart. */
	uint64_t d = a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;

	return (double)d;
}

double dtype_ulp_distance(enum dtype dt, double a, double b)
{
	int bits;
	uint64_t ka, kb;

	if (!dtype_is_float(dt))
		return 0;
	/* Round both to the dtype first, so that, say, 1e39 and INFINITY are the same f32. */
	if (dt != DT_F64) {
		float fa = (float)a, fb = (float)b;

		if (dt == DT_F16)
			a = narrow_to_double(double_to_f16(a), 5, 10), b = narrow_to_double(double_to_f16(b), 5, 10);
		else if (dt == DT_BF16)
			a = narrow_to_double(double_to_bf16(a), 8, 7), b = narrow_to_double(double_to_bf16(b), 8, 7);
		else
			a = fa, b = fb;
	}
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INFINITY;
	if (isinf(a) && isinf(b) && (a > 0) != (b > 0))
		return INFINITY;
	switch (dt) {
	case DT_F64:
		ka = double_bits(a), kb = double_bits(b), bits = 64;
		break;
	case DT_F32:
	case DT_C64:
		ka = float_bits((float)a), kb = float_bits((float)b), bits = 32;
		break;
	case DT_F16:
		ka = double_to_f16(a), kb = double_to_f16(b), bits = 16;
		break;
	case DT_BF16:
		ka = double_to_bf16(a), kb = double_to_bf16(b), bits = 16;
		break;
	default:
		return 0;
	}
	return key_distance(ordered_key(ka, bits), ordered_key(kb, bits));
}

void dtype_cuda_defines(char *buf, size_t len)
{
	snprintf(buf, len,
		 "#define KBX_DT_F32 %d\n#define KBX_DT_F64 %d\n#define KBX_DT_F16 %d\n#define KBX_DT_BF16 %d\n"
		 "#define KBX_DT_C64 %d\n#define KBX_DT_I8 %d\n#define KBX_DT_U8 %d\n#define KBX_DT_I16 %d\n"
		 "#define KBX_DT_I32 %d\n#define KBX_DT_I64 %d\n#define KBX_DT_BOOL %d\n",
		 DT_F32, DT_F64, DT_F16, DT_BF16, DT_C64, DT_I8, DT_U8, DT_I16, DT_I32, DT_I64, DT_BOOL);
}
