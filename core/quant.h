/*
 * quant.h - quantization triage: a quantized output's error measured in quantization steps.
 *
 * A Quantization task says in task.ini how big one quantization step is at each element of the
 * output it analyses, from the scales its reference keeps in named scratch buffers:
 *
 *     [quant]
 *     output = y                      ; the output analysed
 *     step = x_scale(0) * w_scale(1)  ; one step at y[i, j] = x_scale[i] * w_scale[j]
 *     rows = 0 : row                  ; output axes of the row profile, and what one is called
 *     columns = 1 : column            ; output axes of the column profile
 *     range = -127, 127               ; the quantized range
 *     quantized = 1                   ; y / step itself lies on the integer grid (optional)
 *
 * step is a product of up to QUANT_MAX_FACTORS factors BUF(a, b, ...): the reference's scratch
 * buffer BUF indexed row-major by the output's axes a, b, ... (none: one value). A buffer with
 * more elements than those axes index (a per-key scale for a per-query output, say) is averaged
 * over its trailing elements. A number is a constant factor.
 *
 * quant_analyse() takes the candidate's and the reference's values and the step per element and
 * fills a struct quant_result: a histogram of |error| / step (exact, within half a step, within
 * one step, more), the row and column profiles (max and mean |error| in steps per row and per
 * column, coarsened to at most QUANT_PROFILE_CELLS cells for drawing, with the worst rows and
 * columns named), saturation counts when the output is quantized, and a diagnosis line worded as
 * a hypothesis with its evidence. The result has fixed size and owns no memory.
 *
 * The engine fills one for the [quant] output of every compared case, passing or not
 * (struct output_result.quant); it never changes a verdict.
 */
#ifndef KBX_QUANT_H
#define KBX_QUANT_H

#include <stddef.h>

#include "status.h"

#define QUANT_MAX_FACTORS 4
#define QUANT_MAX_AXES 4
#define QUANT_PROFILE_CELLS 48
#define QUANT_WORST 3

struct quant_factor {
	char buf[64];           /* scratch buffer name; "" for a constant */
	double constant;
	int axes[QUANT_MAX_AXES];
	int naxes;
};

struct quant_spec {
	char output[64];
	struct quant_factor f[QUANT_MAX_FACTORS];
	int nf;
	int row_axes[QUANT_MAX_AXES], nrow_axes;
	int col_axes[QUANT_MAX_AXES], ncol_axes;
	char row_name[16], col_name[16];
	double qmin, qmax;
	int quantized;
};

/* Read one key of [quant] (output, step, rows, columns, range, quantized) into spec; where names
 * the place for messages ('tasks/X/task.ini' line 7). */
enum kbx_status quant_spec_set(struct quant_spec *spec, const char *key, const char *value, const char *where);
/* After all keys: output and step are required, rows / columns default to none. */
enum kbx_status quant_spec_check(const struct quant_spec *spec, const char *where);

/* A reference scale buffer as the engine hands it over, converted to double. */
struct quant_scale {
	const char *name;
	const double *v;
	size_t n;
};

/* Fill step[numel of shape] from the spec's factors and the scale buffers (looked up by name).
 * KBX_EINVAL naming the buffer when one is missing or too small for the axes that index it. */
enum kbx_status quant_step_fill(const struct quant_spec *spec, const size_t *shape, int ndim,
				const struct quant_scale *scales, int nscales, double *step);

enum quant_bin { QB_EXACT, QB_HALF, QB_ONE, QB_MORE, QB_COUNT };

/* "exact", "<= 1/2 step", "<= 1 step", "> 1 step" */
const char *quant_bin_label(enum quant_bin b);
/* A diagnosis reads "evidence: conclusion": the conclusion is what follows the first ": " outside
 * parentheses (the whole line when there is none), and *evidence_len the bytes before that ": "
 * (0 when there is none). The explorer shows the conclusion first; the JSON carries it apart, so
 * that an evaluation's diagnoses can be counted by what they conclude. */
const char *quant_conclusion(const char *diagnosis, size_t *evidence_len);

struct quant_profile {
	char name[16];          /* what one entry is: row, column, channel, token ... */
	int n;                  /* entries (rows, columns); 0: no profile */
	int ncells;             /* cells drawn, each over consecutive entries: <= QUANT_PROFILE_CELLS */
	float cell_max[QUANT_PROFILE_CELLS];   /* max |error| / step over the cell's entries */
	float cell_mean[QUANT_PROFILE_CELLS];  /* the largest entry mean |error| / step in the cell */
	int nworst;
	long long worst[QUANT_WORST];          /* entries with the largest mean, largest first */
	double worst_mean[QUANT_WORST], worst_max[QUANT_WORST];
	double median_mean;     /* median over entries of their mean |error| / step */
	double spread;          /* coefficient of variation of the entry means */
	double within;          /* mean over entries of the coefficient of variation inside each entry:
				 * near 0 when the error is constant along each entry */
};

struct quant_result {
	int valid;              /* 0: not analysed (no [quant], or not this output) */
	unsigned long long n;          /* elements with a finite pair and a positive step */
	unsigned long long skipped;    /* elements left out: a NaN/Inf or a step of 0 */
	unsigned long long hist[QB_COUNT];
	double max_steps, mean_steps;
	struct quant_profile rows, cols;
	double noise;           /* what varies after the row and column means are taken out, as a
				 * coefficient of variation: how far a profile must spread to mean something */
	int has_saturation;     /* the output is quantized: the counts below mean something */
	double qmin, qmax;
	unsigned long long ref_at_end;   /* reference values at qmin or qmax */
	unsigned long long cand_at_end;  /* candidate values at qmin or qmax */
	unsigned long long cand_beyond;  /* candidate values past the range */
	unsigned long long cand_missed;  /* reference at an end, candidate not */
	char diagnosis[400];
};

/* Analyse n values laid out row-major over shape; step[i] <= 0 or a non-finite pair leaves the
 * element out. Fills *out completely. */
void quant_analyse(const struct quant_spec *spec, const double *cand, const double *ref, const double *step,
		   const size_t *shape, int ndim, struct quant_result *out);
/* The same with the exact result the task keeps ([tolerance] exact; NULL: none): where there is
 * one, the diagnosis can also tell whether the candidate's steps follow each row's and column's
 * range (the error against the exact result relative to the reference's own, against the
 * reference's scale), which names one scale per tensor where k terms of rounding noise hide it
 * from the profiles. */
void quant_analyse_exact(const struct quant_spec *spec, const double *cand, const double *ref, const double *exact,
			 const double *step, const size_t *shape, int ndim, struct quant_result *out);

/* As JSON (quantjson.c), for the worker's case events and the history: an object holding every
 * field above; NULL only when out of memory. quant_from_json fills *out from such an object
 * (valid = 1) or returns KBX_EPARSE naming the field that is missing or out of range. */
struct json_t;
struct json_t *quant_to_json(const struct quant_result *q);
enum kbx_status quant_from_json(const struct json_t *o, struct quant_result *out);

#endif
