/*
 * drafts.h - candidates that exist nowhere else, kept on disk until they are written or dropped.
 *
 * A pasted candidate, or one edited in $EDITOR from something that is not the user's own file
 * (the starter, an example, a run from the history), exists only in the explorer. Each change
 * to one is saved at once as a draft, one file per task:
 *
 *     $KBX_DRAFTS/<Category>.<name>         (default $XDG_DATA_HOME/kbx/drafts, else
 *                                            ~/.local/share/kbx/drafts; folder 0700)
 *
 * so that no way out of the explorer (a crash, SIGTERM, a closed terminal) loses it; the next
 * start offers it back as the task's candidate. A draft goes away when its candidate is written
 * to a file (`w`) or replaced after the user said to discard it. No curses here.
 */
#ifndef KBX_TUI_DRAFTS_H
#define KBX_TUI_DRAFTS_H

#include "../core/status.h"

/* The drafts folder (malloc'd; not created here). */
char *drafts_dir(void);
/* Save (replace) the draft of task_id ("Activation/gelu"). */
enum kbx_status drafts_save(const char *dir, const char *task_id, const char *source);
/* Drop it; a missing one is fine. */
void drafts_remove(const char *dir, const char *task_id);
/* Read it back: KBX_OK with *source malloc'd, KBX_ENOTFOUND when there is none. */
enum kbx_status drafts_load(const char *dir, const char *task_id, char **source);

#endif
