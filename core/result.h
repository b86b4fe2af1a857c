/*
 * result.h - verdicts and the results a run produces, shared by the engine, the worker
 * protocol (events.h), the CLI, the TUI and the history.
 */
#ifndef KBX_RESULT_H
#define KBX_RESULT_H

#include "compare.h"
#include "nvml.h"
#include "quant.h"
#include "stats.h"

/* X(id, name, description) -- ordered from best to worst */
#define VERDICT_LIST(X) \
	X(V_PASS, "pass", "every case matched the reference") \
	X(V_WRONG, "wrong", "an output differs from the reference") \
	X(V_IMPOSSIBLE_TIMING, "impossible_timing", \
	  "correct outputs, but a timing beats the device's bandwidth or FLOP ceiling; no speedup") \
	X(V_COMPILE_ERROR, "compile_error", "NVRTC rejected the source") \
	X(V_ABI_ERROR, "abi_error", "a kernel's parameters do not match its launch line") \
	X(V_RUNTIME_ERROR, "runtime_error", "a launch failed on the device") \
	X(V_TIMEOUT, "timeout", "a compile or launch ran past its time limit") \
	X(V_NOT_RUN, "not_run", "compiled, but nothing ran (no CUDA device)") \
	X(V_ERROR, "error", "kbx could not run the candidate")

enum verdict {
#define VERDICT_ENUM(id, name, desc) id,
	VERDICT_LIST(VERDICT_ENUM)
#undef VERDICT_ENUM
	V_COUNT
};

/* "unknown" / "unknown verdict" for a value outside the list. */
const char *verdict_name(enum verdict v);
const char *verdict_description(enum verdict v);
/* 1 and *out set when name is a verdict's name, else 0. */
int verdict_parse(const char *name, enum verdict *out);

/* X(bit, name, description) */
#define WARNING_LIST(X) \
	X(W_NONDETERMINISTIC, "nondeterministic", "a second run on the same inputs gave different bits") \
	X(W_SUSPECT_STATIC, "suspect-static-check", "a static rule flagged the source") \
	X(W_IMPOSSIBLE_TIMING, "impossible-timing", "a timing is above the device's peak (runs before the impossible_timing verdict)") \
	X(W_NO_GOLDEN, "no-golden", "no golden table for this GPU and task") \
	X(W_REVERIFY_FAILED, "reverify-failed", "outputs after timing differ from the verified ones") \
	X(W_SANITIZER, "sanitizer", "compute-sanitizer reported errors in the candidate")

enum warning_bit {
#define WARNING_ENUM(id, name, desc) id##_BIT,
	WARNING_LIST(WARNING_ENUM)
#undef WARNING_ENUM
};
#define WARN(w) (1u << (w##_BIT))

/* Name and description of warning bit `bit_index` (W_x_BIT); NULL past the list. */
const char *warning_name(unsigned bit_index);
const char *warning_description(unsigned bit_index);
/* 1 and *bit_index set when name is a warning's name, else 0. */
int warning_parse(const char *name, unsigned *bit_index);
/* Comma-separated names of the set bits ("" when none); caller frees. */
char *warnings_string(unsigned mask);

struct output_result {
	char arg[64];
	struct cmp_result cmp;
	struct quant_result quant;      /* Quantization tasks' [quant] output: error in steps; valid = 0: none */
};

struct case_result {
	char name[64];
	int index;              /* case index; -1 for a perf-size check */
	enum verdict verdict;   /* pass, wrong or runtime_error */
	char *message;          /* why, in one line (NULL when pass) */
	char oob_arg[64];       /* buffer whose guard zone was written, "" if none */
	char modified_arg[64];  /* `in` buffer that changed, "" if none */
	int nondeterministic;
	struct output_result *outputs;
	int noutputs;
	char first_wrong_stage[64]; /* Fusion: first scratch buffer that differs, "" if none */
	char stage_diagnosis[256];  /* how it differs (stagediag.h), "" if none */
	struct output_result *stage; /* that buffer against the reference's (arg: its name; flat, so
				      * the worst elements' places are indices), NULL if none */
	double seconds;
};

struct perf_result {
	int row;
	char *input_size;       /* JSON text */
	struct sample_stats cand, ref;  /* ms */
	int has_ref;
	double golden_ms;       /* < 0 when no golden row */
	double bytes, flops;    /* < 0 when unknown */
	double gbps, tflops;    /* of the candidate */
	int correct;            /* output at this size matched the reference */
	int impossible;         /* the candidate's timing beats a ceiling (ceiling.h); message says which */
	char *message;
	/* gbps and tflops as a fraction of the GPU's stored calibration (calibrate.h); < 0 (or 0,
	 * as a zeroed struct has) when there is none */
	double bw_fraction, flop_fraction;
	/* how the candidate was timed (bench.h): mode "fixed" or "noise", why it stopped ("count",
	 * "noise", "cap"; "" when not timed), its samples' relative standard deviation */
	char bench_mode[8], bench_stop[8];
	double cand_rsd;
	int hide_latency;
	int ref_is_cand;        /* the candidate is the reference: ref is cand's timing, not timed twice */
	int ref_kept;           /* ref is a timing kept from an earlier run (reftime.h), ref_age_s old */
	double ref_age_s;
	int ref_outputs_kept;   /* checks at this row (before and after timing) that took the
				 * reference's outputs kept from an earlier run (refout.h) */
	struct clock_summary clocks;    /* around the candidate's timing (nvml.h); valid = 0: none */
};

struct compile_diag {
	int line, col;          /* 0 when unknown */
	char severity[16];
	char *message;
};

struct compile_result {
	int ok;
	int cached;
	double seconds;
	char *log;
	char *options;
	char arch[16];
	struct compile_diag *diags;
	int ndiags;
};

/* Where a run's seconds went (summary.split in JSON, and eval's records): compiling (NVRTC or
 * the cache), drawing inputs, verification (what is left: launches, copies, comparisons; launch_s,
 * transfer_s and device_s are its synchronised launches, its copies to and from the GPU, and
 * opening the device: loading the driver, cuInit in a fresh process, the context), and timing
 * (bench_run). X(field, required): required fields are in every stored split; the others came
 * later and read as 0 when missing. */
#define TIME_SPLIT_LIST(X) \
	X(compile_s, 1) X(inputs_s, 1) X(verify_s, 1) X(timing_s, 1) X(launch_s, 0) X(transfer_s, 0) X(device_s, 0)

struct time_split {
#define TIME_SPLIT_FIELD(f, required) double f;
	TIME_SPLIT_LIST(TIME_SPLIT_FIELD)
#undef TIME_SPLIT_FIELD
};

/* sum += part, field by field. */
void time_split_add(struct time_split *sum, const struct time_split *part);

struct run_summary {
	enum verdict verdict;
	unsigned warnings;
	char *message;          /* one line: what decided the verdict */
	int cases_total, cases_passed;
	int perf_unchecked;     /* passed, but the task's perf rows did not run (--no-perf): its
				 * correctness at perf sizes was not checked */
	double speedup_golden;  /* < 0 when not available */
	double speedup_ref;     /* < 0 when not available */
	double cand_ms_sum, ref_ms_sum, golden_ms_sum;
	char gpu[256];
	char golden_table[32];  /* matched golden folder, "" if none */
	int driver_version;
	double seconds;
	struct time_split split;
};

/* Free what a result owns (not the struct itself) and zero it; NULL is fine. */
void case_result_free(struct case_result *c);
void perf_result_free(struct perf_result *p);
void compile_result_free(struct compile_result *c);
void run_summary_free(struct run_summary *s);

/* Deep copies: dst owns copies of everything src points to, and src may be freed at once
 * (release dst with the matching *_free). A pointer field added to a struct above must be copied
 * here and freed there; tests/core/test_result.c fills every field and shows that a copy
 * survives its source. */
void case_result_copy(struct case_result *dst, const struct case_result *src);
void perf_result_copy(struct perf_result *dst, const struct perf_result *src);
void compile_result_copy(struct compile_result *dst, const struct compile_result *src);
void run_summary_copy(struct run_summary *dst, const struct run_summary *src);

/* Append a diagnostic (severity "error", "warning"...; line and col 1-based, 0 when unknown). */
void compile_result_add_diag(struct compile_result *cr, int line, int col, const char *severity, const char *msg);

#endif
