/*
 * analysis: the table of analyses. Each one is an SQL file under analyze/ (embedded at build time) that
 * says its whole computation, over SQLite and gpuprof's SQL functions and tables (analyze/ext/sqlext.h);
 * script_run runs its statements in order and fills the result tables its row declares. gpuprof-analyze
 * runs one; gpuprof-report runs several and renders them together. An analysis is its row: its help, its
 * tables' titles and columns, the options and gate it takes, whether it needs a baseline and its place in
 * the report are fields there, so no program names an analysis (tests/rows.py checks).
 *
 * Ownership: analysis_run appends tables to *out; the caller frees them with tables_free. Rows, options
 * and gates are static.
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
	const struct analysis_param *params;	/* a user's module's own options, bound as :NAME (script_bind) */
	int nparams;
};

/* A user's module's option as bound: :name to value (an integer if it is one, a real if a number, else
   text; NULL when value is). */
struct analysis_param {
	const char *name, *value;
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
 * A result table an analysis declares: statement by statement, each statement of its SQL file that has
 * result columns fills the next table its row declares, one table row per result row. The result columns
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
};

struct analysis {
	const char *name;
	const char *sql;	/* embedded file, e.g. "analyze/hotspots.sql" */
	/* An embedded SQL file run first (statements without results), whose TEMP tables or views several
	   analyses' files read, e.g. "analyze/memory-events.sql"; or NULL. */
	const char *prelude;
	const char *help;	/* one line, for --list and --help */
	const struct table_spec *tables;	/* what its statements fill (script_run), ntables of them */
	int ntables;
	const struct analysis_option *const *options;	/* what else it takes, NULL-ended; or NULL */
	const struct gate *gate;	/* its gate, or NULL */
	const char *usage;	/* --help: its options' heading after its name ("NEW.db: ..."), or NULL */
	int needs_baseline;	/* it compares o->session with a baseline session (analysis_baseline) */
	int section;		/* its place in gpuprof-report, 1 first; 0 none. With needs_baseline, only with
				   --baseline, and before every section without */
	int section_top;	/* rows its report section shows by default, 0 all */
	int kernel_cache;	/* reads the kernels through several tables: keep their columns (one decode) */
	int multi_gpu;		/* its report section only with GPUs to compare, two or more (JSON: [] else) */
	/* A user's module (analysis_from_text): its SQL text itself, run in place of the file sql names; its
	   header (messages name module->file and the line; tables come from its statements when ntables is
	   0). NULL for the shipped ones. */
	const char *text;
	const struct module *module;
};

extern const struct analysis analyses[];	/* ended by a row with name NULL */
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

/*
 * A user's module's text as an analysis (heap-allocated, lives until exit): file names it in messages.
 * NULL after a "FILE:LINE: what" message (a malformed header, or a module that is no analysis).
 */
const struct analysis *analysis_from_text(const char *file, const char *text);

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
 * script_run for a user's module m, whose whole file is text: a statement that fails is
 * "FILE:LINE: SQLite's message" (its first line); with n == 0 each statement with result columns makes a
 * table of its own (named after m, then NAME_2 ...), its columns' kinds from m's column lines, else from
 * their names (module_kind_from_name), else from their values (text, or numbers). A result column `_fail`
 * (a user gate's verdict per row) is kept as an int column of that key. 0, or -1 with the message.
 */
int script_run_module(sqlite3 *db, const char *text, const struct module *m, const struct analysis_opts *o,
		      const struct table_spec *tables, int n, struct tables *out);
/* Whether script_bind binds :name itself (session, top, threshold, ...): a user's option of that name is
   gpuprof's own. */
int script_binds(const char *name);
/*
 * Bind the options a statement names: :session, :match, :exclude, :top (-1 for all), :short (0/1),
 * :folded (1 with --short or --group), :base_session, :threshold, :min_delta, :min_calls, :limit, :by_shape, :fold_backward and
 * :carbon_intensity (NULL when not given);
 * and the data files analyses read: :stall_reasons (analyze/stall-reasons.txt). script_run binds
 * :class_rules and :class_rules_file too: the text and name of the file GPUPROF_CLASS_RULES names, else
 * of analyze/kernel-classes.rules (a file it cannot read fails the run).
 */
void script_bind(sqlite3_stmt *st, const struct analysis_opts *o);
/* Print the statement's error, finalize it, return -1. */
int step_error(sqlite3_stmt *st);
/* The seven statistics columns of the analyses that show Nsight's statistics, with the count column's key and title. */
#define STATS_COLUMNS(count_key, count_title) \
	{ "total_ns", "Total", C_NS }, { count_key, count_title, C_INT }, { "avg_ns", "Avg", C_NS }, \
	{ "med_ns", "Med", C_NS }, { "min_ns", "Min", C_NS }, { "max_ns", "Max", C_NS }, \
	{ "stddev_ns", "StdDev", C_NS }

/* Add a --group NAME=RE option; 0, or -1 with a message when it is malformed. */
int analysis_add_group(struct analysis_opts *o, const char *arg);
/*
 * Copy result columns 0..n-1 of st into row r from table column `first` on: text for text columns, else
 * the value as SQLite holds it (real or integer); NULLs stay NULL.
 */
void cells_from_row(struct table *t, size_t r, int first, sqlite3_stmt *st, int n);

const struct analysis *analysis_find(const char *name);
/* Run analysis a; 0 on success, -1 with a message. */
int analysis_run(sqlite3 *db, const struct analysis *a, const struct analysis_opts *o, struct tables *out);
void tables_add(struct tables *ts, struct table *t);
void tables_free(struct tables *ts);

#endif
