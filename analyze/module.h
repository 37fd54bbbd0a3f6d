/*
 * module: the header of an analysis module, parsed. A module is one file analyze/NAME.sql; its header is
 * the run of `--` lines at the top, before the first statement. A line `-- KEY: VALUE` with a KEY below
 * is a declaration; every other line of the header is prose, kept as the module's documentation
 * (README "Writing an analysis module" says the format, key by key):
 *
 *   analysis: NAME | module: NAME        exactly one of them
 *   title: ONE LINE                      include: NAME *
 *   option: NAME DEFAULT DOC *           gate: NAME [DEFAULT] DOC
 *   section: N [top K] [multi-gpu]       baseline: required
 *   kernel-cache: yes|no                 usage: TEXT
 *   table: KEY [vertical] TITLE *        column: KEY KIND[,FLAG] ["Title"] DOC *
 *   pivot: KEY KIND at COLUMN
 *
 * Pure: it depends on lib/ only (util, table.h's enum col_type and C_HIDE_*), so the SQLite extension
 * links it too.
 *
 * Ownership: module_parse fills a struct module whose every string and array is its own (copied out of
 * the text); module_release frees them all and leaves the struct zeroed. A struct module_param's def is
 * NULL for the DEFAULT '-'.
 */
#ifndef GPUPROF_MODULE_H
#define GPUPROF_MODULE_H

#include "table.h"

struct module_param {
	char *name, *def, *doc;	/* "min_delta", "10000" (NULL for '-'), its one-line doc ("" when none) */
};

struct module_column {
	char *key, *title, *doc;	/* title made from the key when the line gives none; doc "" when none */
	enum col_type type;
	int flags;		/* C_HIDE_NULL, C_HIDE_GROUP */
};

struct module_table {
	char *key, *title;
	int vertical;		/* text: one "title: value" line per column */
	struct module_column *cols;
	int ncols;
	struct module_column *pivot;	/* the data-named columns (struct table_spec's pivot), or NULL */
	char *pivot_at;		/* the declared column they go before (the pivot line's COLUMN), or NULL */
};

struct module {
	char *file, *name, *title, *doc, *usage;	/* doc: the prose lines, "-- " taken off, joined by '\n' */
	int is_analysis;	/* `-- analysis:` 1, `-- module:` 0 */
	char **includes;	/* `-- include:` names, in order */
	int nincludes;
	struct module_param *params;	/* `-- option:` lines, in order */
	int nparams;
	struct module_param gate;	/* gate.name NULL when none */
	int section, section_top, multi_gpu, needs_baseline, kernel_cache;
	struct module_table *tables;
	int ntables;
	/*
	 * Column lines of a module without table lines (a user's module): they declare the kind, title and
	 * doc of the result columns of that key in every table its statements make.
	 */
	struct module_column *columns;
	int ncolumns;
	int body_line;		/* 1-based line where the SQL after the header starts */
};

/*
 * Parse text's header into m (file names it in messages and is copied into m->file). 0, or -1 after
 * error("FILE:LINE: what") with m released.
 */
int module_parse(const char *file, const char *text, struct module *m);
void module_release(struct module *m);
/* The kind an undeclared column KEY takes from its name (C_NS, C_BYTES, C_PCT, C_INT), or -1. */
int module_kind_from_name(const char *key);
/*
 * The line of text's header that declares `-- KEY: VALUE` with value's first word (any value when value is
 * NULL), for messages about a declaration; 1 when there is none.
 */
int module_decl_line(const char *text, const char *key, const char *value);
/* The kind called name in a column line ("count", "ns", ...), or -1. */
int module_kind(const char *name);
/* The title a column line without one gets: the key's words, '_' as ' ', the first capitalised ("Total"). */
char *module_default_title(const char *key);

#endif
