/*
 * analysis: the table of analyses. Each one is a module, an SQL file analyze/NAME.sql (embedded at build
 * time) that says its whole computation, over SQLite and gpuprof's SQL functions and tables
 * (analyze/ext/sqlext.h), and whose header declares what it is (analyze/module.h; README "Writing an
 * analysis module"): its help, its tables' titles and columns, the preludes it includes, the options and
 * gate it takes, whether it needs a baseline and its place in the report. The table is made from those
 * headers (analyses.c), so no program names an analysis (tests/rows.py checks). script_run runs its
 * statements in order and fills the result tables its header declares. gpuprof-analyze runs one;
 * gpuprof-report runs several and renders them together.
 *
 * Ownership: analysis_run appends tables to *out; the caller frees them with tables_free. The table's rows,
 * the analyses analysis_from_text makes, options and gates live until exit.
 */
#ifndef GPUPROF_ANALYSIS_H
#define GPUPROF_ANALYSIS_H

#include <sqlite3.h>
#include <stdint.h>
#include "table.h"

struct module;

struct analysis_opts {
	int64_t session;	/* sessions.id */
	int top;		/* keep the first N rows of ranked tables, 0 = all */
	const char *match;	/* PCRE2 pattern names must match, or NULL */
	const char *exclude;	/* PCRE2 pattern names must not match, or NULL */
	const char **groups;	/* --group NAME=RE, folding names into families (temp.name_groups) */
	int ngroups;
	int short_names;	/* --short: base names without return type, templates, parameters */
	sqlite3 *base_db;	/* compare: the baseline's connection, or NULL for the same database */
	int64_t base_session;	/* compare: the baseline's sessions.id */
	double threshold;	/* compare, trend: relative change that counts, 0.05 = 5% */
	int threshold_given;	/* --threshold was given (ranks' default is 10%) */
	int64_t min_delta;	/* compare: absolute change of the median that counts, ns */
	int64_t min_calls;	/* compare: names with fewer calls on both sides are unchanged */
	const char *baseline;	/* --baseline BASE.db, or NULL (analysis_baseline opens it) */
	const char *base_id;	/* --base-session ID (id or uuid), or NULL */
	int64_t limit;		/* a gate's argument: --fail-on-leak BYTES, --fail-above SIZE (bytes),
				   --fail-on-growth LEVEL (1 low, 2 medium, 3 high) */
	double share;		/* --fail-above PCT: the share of a device's memory (0.9); 0 with a SIZE */
	double carbon_intensity;	/* energy: --carbon-intensity, grams of CO2e per kWh */
	int carbon_given;	/* --carbon-intensity was given (else :carbon_intensity is NULL) */
	int by_shape;		/* ops: --by-shape, rows per name and input shapes (:by_shape) */
	int fold_backward;	/* ops: --fold-backward, backward ops in their forward op's row (:fold_backward) */
	/* A module's own options (not built in): "NAME=VALUE" (analysis_set_param, --opt), the last one wins. */
	const char **params;
	int nparams;
	const struct module *module;	/* set by analysis_run: the module whose own options script_bind binds */
};

/* The defaults: no filters, threshold 5%, min-delta 10 us, min-calls 1. */
void analysis_opts_init(struct analysis_opts *o);

struct tables {
	struct table **v;
	int n;
};

/*
 * An option an analysis takes beyond the common ones of gpuprof-analyze (--format, --top, --match,
 * --exclude, --session, --wide, --group, --short, which every analysis takes).
 */
struct analysis_option {
	const char *name;	/* long option: "min-delta" */
	int has_arg;		/* as getopt's: no_argument, required_argument or optional_argument */
	const char *arg;	/* its argument in --help: "TIME", "[BYTES]"; NULL when none */
	const char *help;	/* --help text; a line goes on after "\n" and 28 spaces */
	const char *want;	/* what a malformed argument should be: "needs a count" */
	int lenient;		/* the analyses without it accept it too, and ignore it (as they always have) */
	/* Take the argument (NULL when none, or an optional one left out) into o; -1 when malformed, quietly. */
	int (*parse)(struct analysis_opts *o, const char *arg);
};

/* A gate: an option after which the analysis judges all its rows and gpuprof-analyze exits 1 on FAIL. */
struct gate {
	const struct analysis_option *option;	/* --fail-on-leak [BYTES] */
	/*
	 * Judge every row of the analysis's tables ts under o: the verdict into line ("leaks: 12.00 MB unfreed
	 * (...), limit 0 bytes: FAIL"); 1 when it failed, 0 when it passed.
	 */
	int (*judge)(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n);
};

/*
 * A result table an analysis declares (a `-- table:` line of its header and its `-- column:` lines):
 * statement by statement, each statement of its SQL file that has result columns fills the next table its
 * header declares, one table row per result row. The result columns
 * are the declared columns' keys, in their order (script_run checks); a further result column `_note`, if
 * any, gives the table's note (its first non-NULL value), a column `_footer` after it (or in its place) the
 * line after the rows (a verdict), and columns flagged C_HIDE_NULL are left out
 * when NULL in every row (those flagged C_HIDE_GROUP only when all of them are). A heading statement, whose result columns are `_title` and/or `_note`, gives
 * the next table its title and note (its first row's non-NULL values), also when that table has no rows.
 * Statements without result columns (CREATE TEMP ...) just run.
 */
struct table_spec {
	const char *name, *title;
	const struct colspec *cols;
	int ncols;
	int vertical;		/* text: one "title: value" line per column */
	/*
	 * Columns the data names, or NULL. The statement's result columns are then the declared keys, then
	 * `_pivot` (a column's title) and `_value` (its cell), one result row per cell: consecutive result
	 * rows with equal declared columns are one table row, and each distinct `_pivot` (in order of first
	 * appearance; NULL: no cell) a column of pivot->type keyed title + pivot->key ("_pct"), placed
	 * before declared column pivot_at.
	 */
	const struct colspec *pivot;
	int pivot_at;
	/*
	 * A user's module without table lines: every result statement makes a table of this spec (the first
	 * named `name`, the next name_2, ...) whose columns are the statement's result columns (then `_note`,
	 * `_footer`): a declared one (cols, by key) takes its kind, title and flags; another its kind from its
	 * name (module_kind_from_name), else C_INT or C_REAL when all its values are integers or numbers, else
	 * C_TEXT.
	 */
	int open;
};

/* A prelude module that runs before an analysis: its file ("analyze/views.sql") and text. */
struct analysis_include {
	const char *file, *text;
};

struct analysis {
	const char *name;
	const char *sql;	/* its file: "analyze/hotspots.sql" (embedded), or a user's module's path */
	const char *text;	/* the file's text: its header, then its statements */
	/* The prelude modules it includes (`-- include:`), theirs before each, each once, in the order they
	   run before it (analysis_run), e.g. analyze/views.sql, analyze/memory-events.sql. */
	const struct analysis_include *includes;
	int nincludes;
	const char *help;	/* one line, for --list and --help (its title) */
	const char *doc;	/* its header's prose */
	const struct module *module;	/* its header, parsed */
	const struct table_spec *tables;	/* what its statements fill (script_run), ntables of them */
	int ntables;
	const struct analysis_option *const *options;	/* its built-in options, NULL-ended; or NULL */
	const struct gate *gate;	/* its gate, or NULL (a user's module's own gate is module->gate) */
	const char *usage;	/* --help: its options' heading after its name ("NEW.db: ..."), or NULL */
	int needs_baseline;	/* it compares o->session with a baseline session (analysis_baseline) */
	int section;		/* its place in gpuprof-report, 1 first; 0 none. With needs_baseline, only with
				   --baseline, and before every section without */
	int section_top;	/* rows its report section shows by default, 0 all */
	int kernel_cache;	/* reads the kernels through several tables: keep their columns (one decode) */
	int multi_gpu;		/* its report section only with GPUs to compare, two or more (JSON: [] else) */
	int user;		/* a user's module (analysis_from_text): a statement that fails says FILE:LINE */
};

/* The shipped analyses in --list order, ended by a row with name NULL (made before main from the headers). */
extern const struct analysis *analyses;
/*
 * Make the table from modules' texts (files[i] names texts[i]: analyze/NAME.sql), preludes among them;
 * what runs before main does with the embedded ones, and the build's checker (scripts/modcheck.c) with
 * the files. 0, or -1 with a "FILE:LINE: what" message (what was made so far is not freed).
 */
int analyses_load(int n, const char *const *files, const char *const *texts);
/*
 * A user's module (file names it in messages) as an analysis: its includes among the shipped modules, its
 * built-in options and gate resolved, its own options in a->module->params (bound by name: --opt), tables
 * as its header declares them or, without table lines, one per result statement (struct table_spec.open).
 * Heap-allocated, lives until exit; NULL after a "FILE:LINE: what" message.
 */
const struct analysis *analysis_from_text(const char *file, const char *text);
/* The built-in option a header's name gives (min_delta: --min-delta), or NULL. */
const struct analysis_option *analysis_builtin_option(const char *name);
/*
 * Add a module option's value, "NAME=VALUE" (--opt), to o (kept, not copied): script_bind binds :NAME to
 * it, an integer or a real when it reads as one, else text. 0, or -1 with a message (malformed, or NAME is
 * a built-in option, which has its own flag).
 */
int analysis_set_param(struct analysis_opts *o, const char *arg);
/* --carbon-intensity G_PER_KWH (energy's option), which gpuprof-report takes too. */
extern const struct analysis_option opt_carbon_intensity;
/*
 * The baseline of an analysis that needs one, attached to db as schema `base` (o->baseline's file, else
 * db's own again), its session in o->base_session: o->baseline's o->base_id or newest session, else db's
 * o->base_id, else the session before o->session; o->base_db is o->baseline's connection, opened to find
 * the session. 0, or -1 with a message (o->base_db still set: the caller closes it).
 */
int analysis_baseline(sqlite3 *db, struct analysis_opts *o);
/* Whether opt is one of a's options or its gate's. */
int analysis_takes(const struct analysis *a, const struct analysis_option *opt);

/* Statements of one SQL file, prepared one after another with the options bound by name. */
struct script {
	sqlite3 *db;
	const char *tail;	/* the SQL not prepared yet */
	const struct analysis_opts *o;
};

/*
 * Run an analysis's SQL file: every statement in order with the options bound (script_bind), each
 * statement with result columns into the next of the n tables (struct table_spec), appended to *out.
 * Before the first, the TEMP table name_groups(ord, name, pattern) holds o's --group options in order, for
 * the SQL to fold names with. 0, or -1 with a message (the tables made so far stay in *out).
 */
int script_run(sqlite3 *db, const char *sql, const struct analysis_opts *o, const struct table_spec *tables,
	       int n, struct tables *out);
/*
 * script_run for the file whose whole text is sql (a user's module): a statement that fails is
 * "FILE:LINE: SQLite's message", LINE its first line's, unless the system failed it (db_error's message).
 */
int script_run_file(sqlite3 *db, const char *sql, const char *file, const struct analysis_opts *o,
		    const struct table_spec *tables, int n, struct tables *out);
/*
 * Bind the options a statement names: :session, :match, :exclude, :top (-1 for all), :short (0/1),
 * :folded (1 with --short or --group), :base_session, :threshold, :min_delta, :min_calls, :limit, :by_shape, :fold_backward and
 * :carbon_intensity (NULL when not given);
 * and the data files analyses read: :stall_reasons (analyze/stall-reasons.txt). script_run binds
 * :class_rules and :class_rules_file too: the text and name of the file GPUPROF_CLASS_RULES names, else
 * of analyze/kernel-classes.rules (a file it cannot read fails the run). With o->module, each of its own
 * options (not built in) too: :NAME, its value in o->params, else its default (NULL for '-').
 */
void script_bind(sqlite3_stmt *st, const struct analysis_opts *o);
/* Print the statement's error, finalize it, return -1. */
int step_error(sqlite3_stmt *st);

/* Add a --group NAME=RE option; 0, or -1 with a message when it is malformed. */
int analysis_add_group(struct analysis_opts *o, const char *arg);
/*
 * Copy result columns 0..n-1 of st into row r from table column `first` on: text for text columns, else
 * the value as SQLite holds it (real or integer); NULLs stay NULL.
 */
void cells_from_row(struct table *t, size_t r, int first, sqlite3_stmt *st, int n);

const struct analysis *analysis_find(const char *name);
/* Run analysis a: its includes, then its statements (script_run); 0 on success, -1 with a message. */
int analysis_run(sqlite3 *db, const struct analysis *a, const struct analysis_opts *o, struct tables *out);
void tables_add(struct tables *ts, struct table *t);
void tables_free(struct tables *ts);

#endif
