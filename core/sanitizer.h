/*
 * sanitizer.h - read compute-sanitizer's report (kbx run --sanitize TOOL).
 *
 * With --sanitize the worker runs under NVIDIA's compute-sanitizer (memcheck, racecheck or
 * initcheck), which writes its report to a log file in the worker's directory. Each report
 * starts with a headline at the left margin ("========= Invalid __global__ write of size 4
 * bytes", "========= Error: Race reported between Write access at ...", "========= Uninitialized
 * __global__ memory read of size 4 bytes") followed by indented detail lines, one of which places
 * it in the source ("at gelu+0x1a0 in cand.cu:12", or the older "at 0x1a0 in cand.cu:12:gelu").
 * Consequences of an error (API calls that failed afterwards, host backtraces, summaries) are
 * not findings. Identical findings (same headline and line) are counted once.
 */
#ifndef KBX_SANITIZER_H
#define KBX_SANITIZER_H

struct san_finding {
	char *what;             /* the headline, without the "========= " margin */
	char *file;             /* as the report spells it; "" when no line was given */
	int line;               /* 0 when unknown */
	char *where;            /* "thread (3,0,0) in block (7,0,0)" or "" */
	int count;              /* how many times the same finding was reported */
};

/* Parse a report. Returns the number of findings; *out is malloc'd (NULL when 0). */
int sanitizer_parse(const char *log, struct san_finding **out);
void sanitizer_findings_free(struct san_finding *f, int n);
/* Whether a finding's file is the candidate's: the same base name as candidate_name, unless the
 * candidate is itself named like the reference (then every finding counts). */
int sanitizer_is_candidate(const struct san_finding *f, const char *candidate_name);
/* Whether tool is one kbx knows how to run. */
int sanitizer_tool_ok(const char *tool);

#endif
