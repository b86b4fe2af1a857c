/*
 * report_int.h - the pieces report.c and report_diff.c both draw with (not for other files).
 */
#ifndef KBX_TUI_REPORT_INT_H
#define KBX_TUI_REPORT_INT_H

#include "../core/compare.h"
#include "doc.h"

/* What the figures of an output leave out (compare_nonfinite_note), on a line of its own. */
void report_nonfinite_line(struct doc *d, const struct cmp_result *m, const char *indent);
/* A figure right-aligned in width columns; negative_absent: a negative value shows as "-". */
void report_num_col(struct doc *d, int role, double v, int width, int negative_absent);
/* "name  value  <= threshold  ✓" (ge: the value must be at least the threshold). */
void report_metric_line(struct doc *d, const char *name, double v, double thr, int ge, int width);

#endif
