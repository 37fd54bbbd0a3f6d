/*
 * formats: the report's renderer for each format, and the text, CSV, JSON and Markdown documents.
 */
#include "report.h"
#include "util.h"

#include <errno.h>
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

int report_md(FILE *out, const char *path, const struct report_doc *d)
{
	(void)path;
	fprintf(out, "## gpuprof report\n\n");
	return report_stream(out, d);
}

/* One document holding every table, empty ones too, so the keys are stable (schemas/report-json.md). */
int report_json(FILE *out, const char *path, const struct report_doc *d)
{
	int i;
	(void)path;
	fprintf(out, "{\"gpuprof_report\": 1, \"version\": \"%s\", \"session_id\": %lld,\n\"tables\": {",
		GPUPROF_VERSION, (long long)d->session);
	for (i = 0; i < d->ts->n; i++) {
		fprintf(out, "%s\"%s\": ", i ? ",\n" : "\n", d->ts->v[i]->name);
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
	int i, found = 0, rc;
	if (!path)
		return report_stream(out, d);
	if (mkdir(path, 0755) && errno != EEXIST)
		return error("%s: cannot create directory: %s", path, strerror(errno));
	for (i = 0; i < d->ts->n; i++) {
		char file[4096];
		FILE *f;
		if (d->table && strcmp(d->table, d->ts->v[i]->name))
			continue;
		snprintf(file, sizeof(file), "%s/%s%s", path, d->ts->v[i]->name, d->fmt->ext);
		if (!(f = fopen(file, "w")))
			return error("%s: cannot write: %s", file, strerror(errno));
		if (d->ts->v[i]->quiet) {	/* a section the report leaves out: its header, no rows (as in JSON) */
			struct table empty = *d->ts->v[i];
			empty.nrows = 0;
			rc = render_csv(f, &empty);
		} else {
			rc = render_csv(f, d->ts->v[i]);
		}
		if (rc | fclose(f))
			return error("%s: write error", file);
		found = 1;
	}
	if (d->table && !found)
		return error("no table '%s' in the report", d->table);
	return 0;
}
