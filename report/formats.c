/*
 * formats: the table of report formats, and the text, CSV, JSON and Markdown documents.
 */
#include "columns.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define KC_SECTIONS (KC_ALL & ~KC_STREAM)	/* what the sections read; the HTML timeline adds streams */

const struct report_format report_formats[] = {
	/* name, own_output, needs_path, table_filter, kernel_cols, render */
	{ "text", 0, 0, 0, KC_SECTIONS, report_text },
	{ "csv", 1, 0, 1, KC_SECTIONS, report_csv },
	{ "json", 0, 0, 0, KC_SECTIONS, report_json },
	{ "md", 0, 0, 0, KC_SECTIONS, report_md },
	{ "html", 0, 0, 0, KC_ALL, report_html },
	{ "xlsx", 1, 1, 0, KC_SECTIONS, report_xlsx },
	{ NULL, 0, 0, 0, 0, NULL }
};

const struct report_format *report_format_find(const char *name)
{
	const struct report_format *f;
	if (!strcmp(name, "markdown"))
		name = "md";
	for (f = report_formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

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
	return !strcmp(t->name, "summary") || t->nrows > 0;
}

int report_text(FILE *out, const char *path, const struct report_doc *d)
{
	int i, first = 1;
	(void)path;
	for (i = 0; i < d->ts->n; i++) {
		if (!report_shown(d->ts->v[i]))
			continue;
		if (!first)
			fputc('\n', out);
		first = 0;
		if (render_text(out, d->ts->v[i], d->ro))
			return -1;
	}
	return 0;
}

int report_md(FILE *out, const char *path, const struct report_doc *d)
{
	int i;
	(void)path;
	fprintf(out, "## gpuprof report\n\n");
	for (i = 0; i < d->ts->n; i++)
		if (report_shown(d->ts->v[i]) && render_md(out, d->ts->v[i]))
			return -1;
	return 0;
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
		if (render_json(out, d->ts->v[i]))
			return -1;
	}
	fputs("\n}}\n", out);
	return 0;
}

/*
 * CSV: with -o DIR one RFC 4180 file per table (DIR/hotspots.csv, ...); with --table NAME that table
 * alone on standard output; otherwise every table on standard output, separated by an empty line.
 */
int report_csv(FILE *out, const char *path, const struct report_doc *d)
{
	int i, found = 0;
	if (path) {
		if (mkdir(path, 0755) && errno != EEXIST)
			return error("%s: cannot create directory: %s", path, strerror(errno));
		for (i = 0; i < d->ts->n; i++) {
			char file[4096];
			FILE *f;
			if (d->table && strcmp(d->table, d->ts->v[i]->name))
				continue;
			snprintf(file, sizeof(file), "%s/%s.csv", path, d->ts->v[i]->name);
			if (!(f = fopen(file, "w")))
				return error("%s: cannot write: %s", file, strerror(errno));
			if (render_csv(f, d->ts->v[i]) | fclose(f))
				return error("%s: write error", file);
			found = 1;
		}
	} else {
		for (i = 0; i < d->ts->n; i++) {
			if (d->table ? strcmp(d->table, d->ts->v[i]->name) != 0 : !report_shown(d->ts->v[i]))
				continue;
			if (found)
				fputs("\r\n", out);
			if (render_csv(out, d->ts->v[i]))
				return -1;
			found = 1;
		}
	}
	if (d->table && !found)
		return error("no table '%s' in the report", d->table);
	return 0;
}
