/*
 * formats: the report's renderer for each format, and the text, CSV, JSON and Markdown documents.
 */
#include "report.h"
#include "html.h"
#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const struct report_renderer report_renderers[FMT_N] = {
	[FMT_TEXT] = { report_text },
	[FMT_CSV] = { report_csv },
	[FMT_JSON] = { report_json },
	[FMT_MD] = { report_md },
	[FMT_HTML] = { report_html },
	[FMT_XLSX] = { report_xlsx },
	[FMT_TRACE] = { report_trace_doc },
};

const struct table *report_table(const struct tables *ts, const char *name)
{
	int i;
	for (i = 0; i < ts->n; i++)
		if (!strcmp(ts->v[i]->name, name))
			return ts->v[i];
	return NULL;
}

int report_shown(const struct table *t)
{
	return t->nrows > 0 && !t->quiet;
}

/*
 * The tables on one stream, in the format's own way (its render and separator): the shown ones, or with
 * --table NAME that table alone.
 */
static int report_stream(FILE *out, const struct report_doc *d)
{
	int i, found = 0;
	for (i = 0; i < d->ts->n; i++) {
		if (d->table ? strcmp(d->table, d->ts->v[i]->name) != 0 : !report_shown(d->ts->v[i]))
			continue;
		if (found)
			fputs(d->fmt->sep, out);
		if (d->fmt->render(out, d->ts->v[i], d->ro))
			return -1;
		found = 1;
	}
	if (d->table && !found)
		return error("no table '%s' in the report", d->table);
	return 0;
}

int report_text(FILE *out, const char *path, const struct report_doc *d)
{
	(void)path;
	return report_stream(out, d);
}

/* A cell of row r of t by column key, as people read it, into out; "" when the table lacks the column. */
static const char *md_cell(char *out, size_t n, const struct table *t, size_t r, const char *key)
{
	int c = t ? table_find_col(t, key) : -1;
	*out = 0;
	if (c >= 0 && r < t->nrows)
		table_human(out, n, &t->cols[c], &t->cells[r * (size_t)t->ncols + (size_t)c]);
	return out;
}

/*
 * The parts of a Markdown report are found by the tables' columns, their keys and kinds, never by a
 * table's name: each is the first table of the report that has every column of its list (ended by a NULL
 * key), of its kind, shown or not (a part whose table has no rows is left out).
 */
struct md_col {
	const char *key;
	enum col_type type;
};
/* The session's GPU busy share and kernels in one row (the summary). */
static const struct md_col md_busy[] = {
	{ "busy_pct", C_PCT }, { "busy_ns", C_NS }, { "gpu_span_ns", C_NS }, { "kernels", C_INT },
	{ "wall_span_ns", C_NS }, { NULL, C_INT },
};
/* Recording problems: what went wrong, from where, how often (never folded). */
static const struct md_col md_problems[] = {
	{ "problem", C_TEXT }, { "source", C_TEXT }, { "count", C_INT }, { NULL, C_INT },
};
/* Names by their share of the total time (the first: the kernels by total time; its top rows unfolded). */
static const struct md_col md_top[] = {
	{ "name", C_TEXT }, { "total_ns", C_NS }, { "time_pct", C_PCT }, { NULL, C_INT },
};

/* The first table of d with every column of cols, of its kind; NULL if none. */
static const struct table *md_table_with(const struct report_doc *d, const struct md_col *cols)
{
	int i, k, c;
	for (i = 0; i < d->ts->n; i++) {
		const struct table *t = d->ts->v[i];
		for (k = 0; cols[k].key; k++)
			if ((c = table_find_col(t, cols[k].key)) < 0 || t->cols[c].type != cols[k].type)
				break;
		if (!cols[k].key)
			return t;
	}
	return NULL;
}

/*
 * The verdicts a Markdown report leads with, as a list: the session's GPU busy share and kernels (md_busy),
 * each shown table's footer (its one-line verdict) and each row's verdict where a table has a verdict column.
 */
static void md_verdicts(FILE *out, const struct report_doc *d)
{
	const struct table *sum = md_table_with(d, md_busy);
	char a[128], b[128], c[128], e[128];
	size_t r;
	int i, k;
	fputs("### Verdicts\n\n", out);
	if (sum && sum->nrows)
		fprintf(out, "- **GPU busy**: %s %% of the GPU span (%s of %s); %s kernels in a wall span of %s\n",
			md_cell(a, sizeof(a), sum, 0, "busy_pct"), md_cell(b, sizeof(b), sum, 0, "busy_ns"),
			md_cell(c, sizeof(c), sum, 0, "gpu_span_ns"), md_cell(e, sizeof(e), sum, 0, "kernels"),
			md_cell(e + 64, sizeof(e) - 64, sum, 0, "wall_span_ns"));
	for (i = 0; i < d->ts->n; i++) {
		const struct table *t = d->ts->v[i];
		size_t len = t->title ? strlen(t->title) : 0;
		/* A title that ends in its verdict (the comparison's: "...: ok", "...: FAIL") is one. */
		if ((len > 4 && !strcmp(t->title + len - 4, ": ok")) || (len > 6 && !strcmp(t->title + len - 6, ": FAIL"))) {
			fputs("- ", out);
			md_text(out, t->title);
			fputc('\n', out);
		}
		if (!report_shown(t))
			continue;
		if (t->footer) {
			fputs("- **", out);
			md_text(out, t->title);
			fputs("**: ", out);
			md_text(out, t->footer);
			fputc('\n', out);
		}
		if ((k = table_find_col(t, "verdict")) < 0)
			continue;
		for (r = 0; r < t->nrows && r < 5; r++) {
			const struct cell *v = &t->cells[r * (size_t)t->ncols + (size_t)k];
			if (v->null || !v->s)
				continue;
			fputs("- **", out);
			md_text(out, t->title);
			fputs("**: ", out);
			md_text(out, v->s);
			if (table_find_col(t, "device") >= 0)
				fprintf(out, " (device %s)", md_cell(a, sizeof(a), t, r, "device"));
			fputc('\n', out);
		}
	}
	fputc('\n', out);
}

/*
 * s as the text of an HTML element in Markdown (a <summary>): as GFM shows it, with what HTML must have
 * escaped: < and >, and & only where it would begin a character reference (a plain "a & b" stays so, as
 * GitHub shows it); control characters visible ("\x1b", table_visible).
 */
static void md_html_text(FILE *out, const char *s)
{
	char *shown = xmalloc(strlen(s) * 6 + 1);
	const char *p;
	table_visible(shown, strlen(s) * 6 + 1, s);
	for (p = shown; *p; p++) {
		if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (md_entity_at(p))
			fputs("&amp;", out);
		else
			fputc(*p, out);
	}
	free(shown);
}

/* One section folded: <details> with the table's title as its <summary>, blank lines so GitHub renders it. */
static int md_details(FILE *out, const struct table *t, const char *title)
{
	fputs("<details><summary>", out);
	md_html_text(out, title);
	fputs("</summary>\n\n", out);
	if (render_md_rows(out, t))
		return -1;
	fputs("</details>\n\n", out);
	return ferror(out) ? -1 : 0;
}

/*
 * Markdown for a CI job summary ($GITHUB_STEP_SUMMARY): the verdicts, the recording problems when there
 * are any (md_problems), the top MD_TOP kernels (md_top), then every other shown section folded in a
 * <details> block named by its title. --table NAME: that table alone.
 */
#define MD_TOP 10
int report_md(FILE *out, const char *path, const struct report_doc *d)
{
	const struct table *hot = md_table_with(d, md_top), *problems = md_table_with(d, md_problems);
	int i;
	(void)path;
	fprintf(out, "## gpuprof report\n\n");
	if (d->table)
		return report_stream(out, d);
	md_verdicts(out, d);
	/* What went wrong while recording is never folded: every number below may be short of it. */
	if (problems && report_shown(problems) && render_md(out, problems))
		return -1;
	if (hot && report_shown(hot)) {
		struct table top = *hot;
		char title[256];
		top.nrows = hot->nrows < MD_TOP ? hot->nrows : MD_TOP;
		top.footer = NULL;
		if (render_md(out, &top))
			return -1;
		if (hot->nrows > MD_TOP) {
			snprintf(title, sizeof(title), "%s: all %zu", hot->title, hot->nrows);
			if (md_details(out, hot, title))
				return -1;
		}
	}
	for (i = 0; i < d->ts->n; i++)
		if (d->ts->v[i] != hot && d->ts->v[i] != problems && report_shown(d->ts->v[i]) &&
		    md_details(out, d->ts->v[i], d->ts->v[i]->title))
			return -1;
	return ferror(out) ? -1 : 0;
}

/* One document holding every table, empty ones too, so the keys are stable (schemas/report-json.md). */
int report_json(FILE *out, const char *path, const struct report_doc *d)
{
	int i;
	(void)path;
	fprintf(out, "{\"gpuprof_report\": 1, \"version\": \"%s\", \"session_id\": %lld,\n\"tables\": {",
		GPUPROF_VERSION, (long long)d->session);
	for (i = 0; i < d->ts->n; i++) {
		/* The users' modules' tables after the report's own, in an object of their own. */
		if (i == d->user_from)
			fputs("\n},\n\"modules\": {", out);
		fprintf(out, "%s\"%s\": ", i && i != d->user_from ? ",\n" : "\n", d->ts->v[i]->name);
		if (d->ts->v[i]->quiet)
			fputs("[]", out);	/* a section the report leaves out: its key, no rows */
		else if (render_json(out, d->ts->v[i], d->ro))
			return -1;
	}
	fputs("\n}}\n", out);
	return 0;
}

/*
 * CSV: with -o DIR one RFC 4180 file per table (DIR/hotspots.csv, ...; with --table NAME that one);
 * without a directory (path NULL: standard output, or -o FILE.csv opened by main) the table --table NAME
 * names, which main insists on: tables joined without their names on one stream were no use.
 */
int report_csv(FILE *out, const char *path, const struct report_doc *d)
{
	struct outfile *files;
	int i, n = 0, rc = 0;
	if (!path)
		return report_stream(out, d);
	if (mkdir(path, 0755) && errno != EEXIST)
		return error("%s: cannot create directory: %s", path, strerror(errno));
	/* Every file aside first, then all renamed at once: an interrupted report replaces none of them. */
	files = xcalloc((size_t)d->ts->n + 1, sizeof(*files));
	for (i = 0; i < d->ts->n && !rc; i++) {
		char file[4096];
		struct outfile *f = &files[n];
		if (d->table && strcmp(d->table, d->ts->v[i]->name))
			continue;
		snprintf(file, sizeof(file), "%s/%s%s", path, d->ts->v[i]->name, d->fmt->ext);
		if (outfile_open(f, file)) {
			rc = -1;
			break;
		}
		n++;
		if (d->ts->v[i]->quiet) {	/* a section the report leaves out: its header, no rows (as in JSON) */
			struct table empty = *d->ts->v[i];
			empty.nrows = 0;
			rc = render_csv(f->f, &empty);
		} else {
			rc = render_csv(f->f, d->ts->v[i]);
		}
		if (rc)
			error("%s: write error", file);
	}
	if (!rc && d->table && !n)
		rc = error("no table '%s' in the report", d->table);
	if (!rc)
		rc = outfile_commit_all(files, (size_t)n);
	for (i = 0; i < n; i++)
		outfile_abort(&files[i]);
	free(files);
	return rc;
}
