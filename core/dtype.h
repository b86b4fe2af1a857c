/*
 * dtype.h - element types of task buffers and scalars, and host-side conversions.
 *
 * f16 and bf16 are stored as their 16-bit patterns (uint16_t) on the host; c64 is a pair of
 * f32 (real, imaginary). dtype_get/dtype_set move one element through double so that the input
 * generators and the comparison need not know every type.
 */
#ifndef KBX_DTYPE_H
#define KBX_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* X(id, name, bytes, is_float, is_signed) */
#define DTYPE_LIST(X) \
	X(DT_F32, "f32", 4, 1, 1) \
	X(DT_F64, "f64", 8, 1, 1) \
	X(DT_F16, "f16", 2, 1, 1) \
	X(DT_BF16, "bf16", 2, 1, 1) \
	X(DT_I8, "i8", 1, 0, 1) \
	X(DT_U8, "u8", 1, 0, 0) \
	X(DT_I16, "i16", 2, 0, 1) \
	X(DT_I32, "i32", 4, 0, 1) \
	X(DT_I64, "i64", 8, 0, 1) \
	X(DT_BOOL, "bool", 1, 0, 0) \
	X(DT_C64, "c64", 8, 1, 1)

enum dtype {
#define DTYPE_ENUM(id, name, bytes, fl, sg) id,
	DTYPE_LIST(DTYPE_ENUM)
#undef DTYPE_ENUM
	DT_COUNT
};

/* Parse "f32", ...; on failure returns KBX_EPARSE with a message naming the text. */
enum kbx_status dtype_parse(const char *name, enum dtype *out);
const char *dtype_name(enum dtype dt);
size_t dtype_size(enum dtype dt);
int dtype_is_float(enum dtype dt);
/* Number of scalar components: 2 for c64, else 1. */
int dtype_components(enum dtype dt);

/* Element i (component c for c64) as a double; set rounds to nearest even for floats and
 * saturates then truncates toward zero for integers (NaN: 0; bool: v != 0). get of a bool
 * returns the stored byte as it is (0xA5 poison reads as 165, not as true). f16/bf16 are
 * rounded from the double in one step (no double rounding through f32). */
double dtype_get(enum dtype dt, const void *base, size_t i, int c);
void dtype_set(enum dtype dt, void *base, size_t i, int c, double v);

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);

/* Distance in units in the last place between a and b in dtype dt (floats only; 0 for ints):
 * both are rounded to dt, then the number of representable values between them is counted
 * (-0 and +0 are one value; c64 compares one f32 component). NaN against NaN gives 0, NaN
 * against non-NaN and opposite infinities give INFINITY. */
double dtype_ulp_distance(enum dtype dt, double a, double b);

/* The dtype numbers as `#define KBX_DT_F32 n` lines for kbx's own device code (devgen,
 * gpucompare), so that a kernel's switch uses the host's values. Always NUL-terminated. */
void dtype_cuda_defines(char *buf, size_t len);

#endif
