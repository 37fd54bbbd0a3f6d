/*
 * report: the documents of gpuprof-report, one renderer for each output format it takes (a row of
 * formats[] in lib/table.c, where formats are declared) over the same result tables. Adding a format is
 * a row there, a row in report_renderers (formats.c) and one function.
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

/* --format trace: what to keep of the session. */
struct trace_opts {
	const char *match, *exclude;	/* PCRE2 patterns event names must (not) match, or NULL */
	int64_t from, to;		/* the window: offsets from the session's start (or end: *_end) */
	int has_from, has_to, from_end, to_end;
	int64_t rank;			/* --rank: that rank's processes only (has_rank) */
	int has_rank;
};

struct report_doc {
	const struct tables *ts;	/* the sections, in order (empty ones included) */
	sqlite3 *db;			/* still open: for charts that need more than the tables */
	int64_t session;		/* sessions.id */
	const struct render_opts *ro;
	const char *table;		/* --table NAME: only this table, or NULL */
	const struct format *fmt;	/* the format's row (table.h) */
	const struct trace_opts *trace;	/* events formats: what to keep */
	int user_from;			/* ts->v[user_from..]: users' modules' sections (JSON: "modules") */
};

/* The report's renderer for one format: main opens -o PATH for it unless the format writes it itself. */
struct report_renderer {
	int (*render)(FILE *out, const char *path, const struct report_doc *d);
};

/* By format id; every format of formats[] that gpuprof-report takes has one (tests/rows.py runs each). */
extern const struct report_renderer report_renderers[FMT_N];

/*
 * Whether the documents for people (text, Markdown, HTML, xlsx, CSV on standard output) show t: when it
 * has rows (the summary always has its one). JSON and CSV files keep every table.
 */
int report_shown(const struct table *t);
/* The table called `name` among ts, or NULL. */
const struct table *report_table(const struct tables *ts, const char *name);

/*
 * The session as a Chrome trace in the PyTorch profiler's layout (report/trace.c) to path ("-" or NULL:
 * standard output; ".gz": gzip). 0, or -1 with a message.
 */
int report_trace(sqlite3 *db, int64_t session, const struct trace_opts *o, const char *path);
int report_trace_doc(FILE *out, const char *path, const struct report_doc *d);

/*
 * The JSON Schema of report_json's document (report/schema.c) to out, from the report's sections in their
 * order (those that need a baseline included, as optional tables). 0, or -1 on a write error.
 */
int report_schema(FILE *out, const struct analysis *const *sections, int n);

int report_text(FILE *out, const char *path, const struct report_doc *d);
int report_csv(FILE *out, const char *path, const struct report_doc *d);
int report_json(FILE *out, const char *path, const struct report_doc *d);
int report_md(FILE *out, const char *path, const struct report_doc *d);
int report_html(FILE *out, const char *path, const struct report_doc *d);
int report_xlsx(FILE *out, const char *path, const struct report_doc *d);

#endif
