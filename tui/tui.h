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

#endif
