/*
 * starter.h - the skeleton candidate `kbx starter TASK` prints, as text.
 *
 * The same logic as cli/cmd_show.c's cmd_starter (kernel signature in argument order, a launch
 * line over the first output's element count), so the explorer's "start from the starter" gives
 * exactly what the command prints. It belongs in core/ once both use it.
 */
#ifndef KBX_TUI_STARTER_H
#define KBX_TUI_STARTER_H

#include "../core/task.h"

/* Caller frees. */
char *starter_text(const struct task *t);

#endif
