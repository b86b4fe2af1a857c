/*
 * rules.h - static rules: PCRE2 patterns applied to a candidate's source before it compiles.
 *
 * Rules are data (tasks/rules.ini):
 *
 *     [rule.clock_read]
 *     kind = warning              ; fatal | warning | evidence
 *     pattern = \bclock(64)?\s*\(
 *     message = reads a clock: timing-sensitive code
 *
 * Patterns see the source with comments and string literals blanked out (same length, newlines
 * kept), so a rule is not fooled by `// int8` in a comment and findings keep their line and
 * column. A rule with `strings = keep` sees string literals as written (comments still blanked):
 * for what can only be written inside one, the PTX of an asm() statement (`cvt.rni`). Fatal findings make the verdict compile_error; warnings are shown and mark the run
 * suspect-static-check; evidence rules are what a task can require ([static] require = ...): a
 * Quantization kernel with no trace of int8 storage, rounding or clamping is not a quantized
 * kernel, whatever its output. A task can also make a warning fatal ([static] fatal = ...).
 */
#ifndef KBX_RULES_H
#define KBX_RULES_H

#include <stddef.h>

#include "status.h"

enum rule_kind { RULE_FATAL, RULE_WARNING, RULE_EVIDENCE };

/* The language a rule reads (`lang = cuda | python`, default cuda): CUDA rules never see a
 * Python candidate, nor the reverse. */
enum rules_lang { RULES_CUDA, RULES_PYTHON };

struct rule {
	char *id;
	enum rule_kind kind;
	char *pattern;
	char *message;
	int line;               /* in the rules file */
	int keep_strings;       /* match against string literals too (strings = keep) */
	void *re;               /* pcre2_code */
	enum rules_lang lang;
	char *evidence_of;      /* `evidence_of = ID`: this evidence rule is ID's reading in its
				 * language (a Python rule standing for a CUDA one a task requires);
				 * NULL: the rule stands for its own id */
};

struct ruleset {
	struct rule *rules;
	int n;
};

struct finding {
	const struct rule *rule;
	int line, col;          /* 1-based */
};

/* Parse rules from text (`path` names it in errors). Errors name the file, line and what was
 * expected; a pattern that does not compile is reported with PCRE2's message and offset. */
enum kbx_status rules_parse(const char *text, const char *path, struct ruleset *out);
/* Load tasks_root/rules.ini; a missing file is an empty set. */
enum kbx_status rules_load(const char *path, struct ruleset *out);
void rules_free(struct ruleset *rs);
const struct rule *rules_find(const struct ruleset *rs, const char *id);
/* Whether rule r is evidence for `id` in `lang`: an evidence rule of that language named id, or
 * one whose evidence_of is id (several may stand for one id: any of them is evidence). */
int rules_stands_for(const struct rule *r, const char *id, enum rules_lang lang);
/* The first rule that stands for `id` in `lang`; NULL when the language has no reading of it. */
const struct rule *rules_find_evidence(const struct ruleset *rs, const char *id, enum rules_lang lang);

/* Every match of fatal and warning rules (one per rule per line) and the first match of each
 * evidence rule, in source order. Returns the count; *out is malloc'd. */
int rules_scan(const struct ruleset *rs, const char *src, struct finding **out);
/* The same for a source in `lang`: only that language's rules, over its code (comments and
 * strings blanked by that language's syntax). rules_scan is the CUDA case. */
int rules_scan_lang(const struct ruleset *rs, const char *src, enum rules_lang lang, struct finding **out);

/*
 * The cost of a scan, for tests and for callers that want to say a scan was cut short. A scan is
 * linear in the source's size: positions are tracked in one pass per rule (`steps` counts the
 * bytes walked, at most the size times the number of rules), and each match attempt is bounded
 * by PCRE2's match and depth limits (RULES_MATCH_LIMIT, RULES_DEPTH_LIMIT); a rule whose attempt
 * reaches a limit stops there and counts in `limited`. Candidate sources are also capped in size
 * (KBX_SOURCE_MAX, lang.h) before they reach a scan.
 */
#define RULES_MATCH_LIMIT 10000000u
#define RULES_DEPTH_LIMIT 100000u

struct rules_scan_stats {
	size_t steps;           /* bytes walked to turn offsets into lines and columns */
	size_t matches;         /* pattern matches seen */
	int limited;            /* rules cut short by a PCRE2 limit */
};

/* rules_scan_lang, reporting its cost in *stats (may be NULL). */
int rules_scan_stats(const struct ruleset *rs, const char *src, enum rules_lang lang, struct finding **out,
		     struct rules_scan_stats *stats);

/* The source with // and block comments and string/char literals replaced by spaces. */
char *rules_code_only(const char *src);
/* The same for Python: # comments and '...', "...", triple-quoted strings (prefixes r, b, f
 * included) blanked, newlines kept. */
char *rules_code_only_python(const char *src);

const char *rule_kind_name(enum rule_kind k);

#endif
