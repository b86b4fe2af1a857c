/* lens_sim.h - what bench/lens_sim's driver (lens_sim.c) and its kernel models (lens_sim_models.c)
 * share: one case as the driver hands it to a task's model, and the helpers the models use. */
#ifndef KBX_BENCH_LENS_SIM_H
#define KBX_BENCH_LENS_SIM_H

#include <stddef.h>

#include "core/problem.h"
#include "core/quant.h"
#include "core/task.h"

#define SIM_MAX_SCALES 2

/* One case of one task. The model fills ref (the reference's output), out (the candidate's) and
 * exact (the exact result the reference keeps for [tolerance] exact), yb->numel values each, as
 * f32 (an f16 output holds f16 values: the driver compares it as f16), and through sim_scale the
 * reference's scratch scales that the task's [quant] step names: the lens reads the reference's
 * scales, whatever the candidate keeps. */
struct sim_case {
	const struct task *t;
	const struct problem *pb;
	const char *name;           /* the case's */
	const char *cand;           /* the candidate's */
	unsigned long long seed;
	float *ref, *out, *exact;
	struct quant_scale sc[SIM_MAX_SCALES];
	double *scale_v[SIM_MAX_SCALES]; /* sc[i].v, owned: the driver frees them */
	int nsc;
};

/* A task's model: 0 with the case filled, -1 for a candidate it does not know. */
typedef int sim_model_fn(struct sim_case *c);

sim_model_fn sim_layernorm_w8a8, sim_gemm_w8a8, sim_conv2d_w8a8, sim_attention_w8a8, sim_linear_w4a16;

/* ---- lens_sim.c's helpers */

/* a binding of the case (an i64, f32 or the like) as a double; exits when it has none */
double sim_env(const struct sim_case *c, const char *name);
/* the case's input arg as kbx's generator draws it, as f32 (f16 and bf16 values widened exactly) */
float *sim_draw(const struct sim_case *c, const char *arg);
/* the reference's scratch scale buffer name, n values, for the lens */
void sim_scale(struct sim_case *c, const char *name, const float *v, size_t n);

/* xor butterfly over 32 lanes; every lane ends equal (fadd commutes): lane 0's value */
float warp_sum(const float *v);
/* notes the quotient v / scale nearest a rounding tie (SIM_VERBOSE prints it) */
void tie_note(float q);
/* int8 of v on scale (0 for a scale of 0), rounded to the nearest even or, with q8_trunc, toward
 * zero; clamped to [-127, 127] */
extern int q8_trunc;
int q8(float v, float scale);

#endif
