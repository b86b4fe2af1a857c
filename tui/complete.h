/*
 * complete.h - file name completion for the path prompt, and ~ expansion.
 */
#ifndef KBX_TUI_COMPLETE_H
#define KBX_TUI_COMPLETE_H

/* "~/x" and "~" with $HOME; anything else copied. Caller frees. */
char *path_expand(const char *input);

/* Complete the last component of input against its folder. Returns the number of matches;
 * *completed (caller frees) is input extended by the matches' longest common prefix, with a '/'
 * added when the one match is a folder. Hidden files match only when the prefix starts with '.'.
 * When matches is not NULL it gets the matching names (sorted; folders end in '/'), freed with
 * path_matches_free. */
int path_complete(const char *input, char **completed, char ***matches);
void path_matches_free(char **m, int n);

#endif
