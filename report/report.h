/*
 * report: the output formats of gpuprof-report, a table of renderers over the same result tables.
 * Adding a format is a row in report_formats (formats.c) and one function.
 *
 * Ownership: the caller owns the document; renderers only read it and write to `out` (or, for formats
 * that are files of their own such as xlsx, to `path`). They return 0, or -1 with a message printed.
 */
#ifndef GPUPROF_REPORT_H
#define GPUPROF_REPORT_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis.h"

struct report_doc {
	const struct tables *ts;	/* the sections, in order (empty ones included) */
	sqlite3 *db;			/* still open: for charts that need more than the tables */
	int64_t session;		/* sessions.id */
	const struct render_opts *ro;
	const char *table;		/* csv --table NAME: only this table, or NULL */
};

struct report_format {
	const char *name;
	int own_output;		/* the renderer writes -o PATH itself (csv: a directory); else main opens it */
	int needs_path;		/* -o PATH required: a file of its own (xlsx) */
	int table_filter;	/* --table NAME renders that table alone */
	unsigned kernel_cols;	/* KC_* kernel columns its sections and charts read (columns.h) */
	int (*render)(FILE *out, const char *path, const struct report_doc *d);
};

/*
 * Whether the documents for people (text, Markdown, HTML, xlsx, CSV on standard output) show t: the
 * summary always, other tables when they have rows. JSON and CSV files keep every table.
 */
int report_shown(const struct table *t);
/* The table called `name` among ts, or NULL. */
const struct table *report_table(const struct tables *ts, const char *name);

extern const struct report_format report_formats[];
const struct report_format *report_format_find(const char *name);

int report_text(FILE *out, const char *path, const struct report_doc *d);
int report_csv(FILE *out, const char *path, const struct report_doc *d);
int report_json(FILE *out, const char *path, const struct report_doc *d);
int report_md(FILE *out, const char *path, const struct report_doc *d);
int report_html(FILE *out, const char *path, const struct report_doc *d);
int report_xlsx(FILE *out, const char *path, const struct report_doc *d);

#endif
