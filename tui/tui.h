/*
 * tui.h - the explorer: the only part of kbx that calls curses.
 *
 * tui_main runs the interactive explorer over a loaded catalogue until the user quits,
 * restoring the terminal on every exit path (also on SIGINT/SIGTERM and fatal errors).
 * Runs go through worker_run (core/worker.h); history through db/.
 */
#ifndef KBX_TUI_H
#define KBX_TUI_H

#include "../core/task.h"

int tui_main(const struct catalogue *cat, const char *db_path, const char *tasks_root);

/* The theme to start with (`kbx --theme NAME`; else $KBX_THEME, else "default"): a name from
 * themes/ (light, high-contrast, mono, ...). Call before tui_main; the string must outlive it. */
void tui_set_theme(const char *name);

/*
 * Environment:
 *   NO_COLOR                  no colours, attributes only (https://no-color.org)
 *   KBX_THEME                 the starting theme when tui_set_theme was not called
 *   KBX_THEMES                the folder of *.theme files
 *   KBX_TUI_EXIT_AFTER_DRAW   quit after the first frame and print its time (bench/tui_startup.sh)
 *   KBX_TUI_NO_GPU            do not probe the GPU (tests)
 *   KBX_TUI_NO_PERF           runs verify only, no timing
 *   KBX_TUI_WORKER            the worker binary to use instead of this one (tests)
 *   VISUAL, EDITOR            the editor for `e` (default vi)
 *   KBX_DRAFTS                the folder of unsaved candidates (drafts.h; default
 *                             $XDG_DATA_HOME/kbx/drafts)
 */

#endif
