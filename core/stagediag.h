/*
 * stagediag.h - how a wrong stage differs: one line on the first scratch buffer where a
 * candidate departs from the reference (the stage diff of engine_verify.c).
 *
 * The first wrong stage names WHERE a pipeline goes wrong; this says HOW, from the two buffers
 * alone, by the patterns that quantization and fused pipelines leave in an intermediate buffer:
 *
 *   integers all within one of the reference's   "the rounding mode differs" (truncation toward
 *                                                 zero, floor or ceil when every step goes one
 *                                                 way)
 *   more integers at the end of the range         saturated (a scale too small)
 *   integers beyond the reference's largest |v|   a wider range (no clamp, or a scale too small)
 *   floats all one factor times the reference's   "a constant factor" (with p/q when the factor
 *                                                 is a ratio of the usual ranges: 127/255, 7/8)
 *   floats with far fewer distinct values         coarser (one scale shared by several rows or
 *                                                 channels: per tensor, per batch)
 *   otherwise                                     how many differ, and by how much
 *
 * Worded as evidence, then a hypothesis. It never changes a verdict.
 */
#ifndef KBX_STAGEDIAG_H
#define KBX_STAGEDIAG_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* Write the line for n elements of dtype dt (cand: the candidate's buffer, ref: the
 * reference's) into buf; "" when they do not differ. */
void stage_diagnose(enum dtype dt, const void *cand, const void *ref, size_t n, char *buf, size_t len);

/* The bytes packed integers of `bits` bits (1, 2, 4, 8 or 16; low bits first, as `// @kbx scratch
 * ... packs s4` declares) widened into dst, one int32 each (bytes * 8 / bits of them), sign-extended
 * when is_signed: a stage of int4 weights is diffed as int4 values, not as the words holding them. */
void stage_unpack(const void *src, size_t bytes, int bits, int is_signed, int32_t *dst);

#endif
