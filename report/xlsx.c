/*
 * xlsx: the report as an Excel workbook (libxlsxwriter): the summary as a sheet of field/value pairs,
 * a sheet per other table with rows, in document order, and native charts for the ranked tables.
 *
 * Numbers stay numbers: durations in ns, sizes in bytes, times as Unix-epoch ns, the unit in the
 * heading; a number format only changes how they look. Text is always written as a string, never a
 * formula, whatever it begins with. Excel numbers are doubles: integers beyond 2^53 (epoch ns) keep
 * about 16 significant digits.
 */
#include "report.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#define XLSX_MAX_ROWS 1048576	/* rows in a sheet, the header included */
#define XLSX_MAX_STRING 32767	/* characters in a cell */
#define XLSX_MAX_WIDTH 80	/* widest column, in characters */
#define XLSX_CHART_ROWS 10	/* bars in a chart */

/* The cell formats of one workbook, made once. */
struct xlsx_formats {
	lxw_format *header;	/* bold heading */
	lxw_format *integer;	/* "#,##0": counts, ns, bytes */
	lxw_format *real;	/* "#,##0.0": real ns and bytes */
	lxw_format *pct;	/* "0.00" */
	lxw_format *time;	/* "0": epoch ns, no separators */
};

/* A chart drawn for a table: the bar labels' column, the values' column, the title. */
static const struct xlsx_chart {
	const char *table, *label, *value, *title;	/* value: a column, or several (stacked), comma-separated */
	uint8_t type;
} xlsx_charts[] = {
	{ "hotspots", "name", "total_ns", "Top kernels by total GPU time (ns)", LXW_CHART_BAR },
	{ "classes", "class", "total_ns", "Kernel time by class (ns)", LXW_CHART_PIE },
	{ "memcpy", "kind", "total_ns", "Copy and memset time by kind (ns)", LXW_CHART_BAR },
	{ "ranks", "rank", "compute_ns,exposed_comm_ns,idle_ns", "Per rank: compute, exposed communication, idle (ns)",
	  LXW_CHART_BAR_STACKED },
};

/* The heading of a column: its title and unit, "Total (ns)". */
static void xlsx_heading(char *out, size_t n, const struct column *c)
{
	const char *unit = "";
	switch (c->type) {
	case C_NS: unit = " (ns)"; break;
	case C_TIME: unit = " (epoch ns)"; break;
	case C_BYTES: unit = " (B)"; break;
	case C_PCT: unit = strchr(c->title, '%') ? "" : " (%)"; break;
	default: break;
	}
	snprintf(out, n, "%s%s", c->title, unit);
}

/* Characters a number takes with its format: digits, separators, sign and decimals. */
static size_t xlsx_num_chars(const struct column *col, const struct cell *c)
{
	char tmp[64];
	size_t digits;
	double v = c->is_real ? c->d : (double)c->i;
	snprintf(tmp, sizeof(tmp), "%.0f", v < 0 ? -v : v);
	digits = strlen(tmp);
	if (col->type == C_TIME)
		return digits;
	if (col->type == C_PCT || col->type == C_REAL)
		return digits + 4;
	return digits + (digits - 1) / 3 + (v < 0) + (c->is_real ? 2 : 0);
}

static lxw_format *xlsx_format(const struct xlsx_formats *f, const struct column *col, const struct cell *c)
{
	switch (col->type) {
	case C_TIME: return f->time;
	case C_PCT: return f->pct;
	case C_REAL: return NULL;
	case C_INT: return f->integer;
	default: return c->is_real ? f->real : f->integer;
	}
}

/*
 * Write one cell at (row, col): NULL stays empty, text as a string (cut at a character boundary when
 * longer than Excel allows), numbers as numbers. Returns 0, or -1 with a message.
 */
static int xlsx_cell(lxw_worksheet *ws, const struct xlsx_formats *f, lxw_row_t row, lxw_col_t col,
		     const struct column *c, const struct cell *cl, const char *sheet)
{
	lxw_error err;
	if (cl->null)
		return 0;
	if (c->type == C_TEXT) {
		err = worksheet_write_string(ws, row, col, cl->s, NULL);
		if (err == LXW_ERROR_MAX_STRING_LENGTH_EXCEEDED) {
			char *cut = xstrdup(cl->s);
			size_t n = strlen(cut), chars = 0, i;
			for (i = 0; i < n; i++)
				if (((unsigned char)cut[i] & 0xC0) != 0x80 && ++chars > XLSX_MAX_STRING)
					break;
			cut[i < n ? i : n] = '\0';
			err = worksheet_write_string(ws, row, col, cut, NULL);
			free(cut);
		}
	} else {
		double v = cl->is_real ? cl->d : (double)cl->i;
		err = worksheet_write_number(ws, row, col, v, xlsx_format(f, c, cl));
	}
	if (err != LXW_NO_ERROR)
		return error("sheet '%s': cannot write a cell: %s", sheet, lxw_strerror(err));
	return 0;
}

/* Set a column's width from the characters of its widest cell. */
static void xlsx_width(lxw_worksheet *ws, lxw_col_t col, size_t chars)
{
	if (chars > XLSX_MAX_WIDTH)
		chars = XLSX_MAX_WIDTH;
	if (chars < 6)
		chars = 6;
	worksheet_set_column(ws, col, col, (double)chars + 2, NULL);
}

/* A sheet name Excel accepts: at most 31 characters, none of []:*?/\ . */
static void xlsx_sheet_name(char *out, size_t n, const char *name)
{
	size_t i;
	snprintf(out, n < 32 ? n : 32, "%s", name);
	for (i = 0; out[i]; i++)
		if (strchr("[]:*?/\\", out[i]))
			out[i] = '_';
	if (!out[0])
		snprintf(out, n, "table");
}

/* The frozen, filtered, bold heading row of a sheet with ncols columns and nrows data rows. */
static int xlsx_frame(lxw_worksheet *ws, int ncols, size_t nrows, const char *sheet)
{
	lxw_error err;
	worksheet_freeze_panes(ws, 1, 0);
	err = worksheet_autofilter(ws, 0, 0, (lxw_row_t)nrows, (lxw_col_t)(ncols - 1));
	if (err != LXW_NO_ERROR)
		return error("sheet '%s': cannot set the filter: %s", sheet, lxw_strerror(err));
	return 0;
}

/* The summary (a one-row table) as two columns, field and value. Returns 0, or -1 with a message. */
static int xlsx_summary(lxw_workbook *wb, const struct xlsx_formats *f, const struct table *t)
{
	char sheet[32], head[512];
	lxw_worksheet *ws;
	size_t wfield = 5, wvalue = 5;
	int c;

	xlsx_sheet_name(sheet, sizeof(sheet), t->name);
	if (!(ws = workbook_add_worksheet(wb, sheet)))
		return error("cannot add the sheet '%s'", sheet);
	worksheet_write_string(ws, 0, 0, "Field", f->header);
	worksheet_write_string(ws, 0, 1, "Value", f->header);
	for (c = 0; c < t->ncols; c++) {
		const struct column *col = &t->cols[c];
		xlsx_heading(head, sizeof(head), col);
		if (worksheet_write_string(ws, (lxw_row_t)c + 1, 0, head, NULL) != LXW_NO_ERROR)
			return error("sheet '%s': cannot write a cell", sheet);
		if (utf8_chars(head) > wfield)
			wfield = utf8_chars(head);
		if (t->nrows > 0) {
			const struct cell *cl = &t->cells[c];
			size_t w;
			if (xlsx_cell(ws, f, (lxw_row_t)c + 1, 1, col, cl, sheet))
				return -1;
			w = cl->null ? 0 : col->type == C_TEXT ? utf8_chars(cl->s) : xlsx_num_chars(col, cl);
			if (w > wvalue)
				wvalue = w;
		}
	}
	xlsx_width(ws, 0, wfield);
	xlsx_width(ws, 1, wvalue);
	return xlsx_frame(ws, 2, (size_t)t->ncols, sheet);
}

/*
 * A native chart of the table's leading rows, below the table: one bar or slice per row, labelled by the
 * column `label`, sized by `value` (stacked bars: a segment per value column). It takes at most XLSX_CHART_ROWS rows and stops at a row without a
 * value or a total row ("all"), so parts are never drawn beside their sum. Does nothing if the table
 * lacks either column or there is no such row.
 */
static void xlsx_chart(lxw_workbook *wb, lxw_worksheet *ws, const char *sheet, const struct table *t,
		       const struct xlsx_chart *spec)
{
	int lc = table_find_col(t, spec->label), vc[4], nv = 0, k;
	lxw_chart_options opt = { .x_scale = 2.0, .y_scale = 1.5 };
	lxw_chart_series *series = NULL;
	lxw_chart *ch;
	lxw_row_t last = 0;
	const char *p = spec->value;
	char names[4][64];

	while (*p && nv < 4) {	/* the value columns */
		size_t len = strcspn(p, ",");
		snprintf(names[nv], sizeof(names[nv]), "%.*s", (int)len, p);
		if ((vc[nv] = table_find_col(t, names[nv])) < 0)
			return;
		nv++;
		p += len + (p[len] == ',');
	}
	if (lc < 0 || !nv)
		return;
	while (last < t->nrows && last < XLSX_CHART_ROWS) {
		const struct cell *label = &t->cells[last * (size_t)t->ncols + lc];
		if (t->cells[last * (size_t)t->ncols + vc[0]].null ||
		    (!label->null && label->s && !strcmp(label->s, "all")))
			break;
		last++;
	}
	if (last == 0 || !(ch = workbook_add_chart(wb, spec->type)))
		return;
	for (k = 0; k < nv; k++) {
		series = chart_add_series(ch, NULL, NULL);
		chart_series_set_categories(series, sheet, 1, (lxw_col_t)lc, last, (lxw_col_t)lc);
		chart_series_set_values(series, sheet, 1, (lxw_col_t)vc[k], last, (lxw_col_t)vc[k]);
		chart_series_set_name(series, names[k]);
	}
	chart_title_set_name(ch, spec->title);
	if (spec->type == LXW_CHART_BAR || spec->type == LXW_CHART_BAR_STACKED) {
		chart_legend_set_position(ch, nv > 1 ? LXW_CHART_LEGEND_BOTTOM : LXW_CHART_LEGEND_NONE);
		chart_axis_set_reverse(ch->y_axis);	/* the first row on top */
	} else {
		chart_legend_set_position(ch, LXW_CHART_LEGEND_RIGHT);
		chart_series_set_labels_percentage(series);
	}
	/* Below the table and the line after it (a verdict). */
	worksheet_insert_chart_opt(ws, (lxw_row_t)t->nrows + 2, 0, ch, &opt);
}

/* One table as a sheet: a heading row, a row per table row, widths, and its chart if it has one. */
static int xlsx_table(lxw_workbook *wb, const struct xlsx_formats *f, const struct table *t)
{
	char sheet[32], head[512];
	lxw_worksheet *ws;
	size_t r, *width;
	int c, rc = 0;
	unsigned i;

	if (t->nrows >= XLSX_MAX_ROWS)
		return error("table '%s' has %zu rows, more than a sheet holds", t->name, t->nrows);
	xlsx_sheet_name(sheet, sizeof(sheet), t->name);
	if (!(ws = workbook_add_worksheet(wb, sheet)))
		return error("cannot add the sheet '%s'", sheet);
	width = xcalloc((size_t)t->ncols, sizeof(*width));
	for (c = 0; c < t->ncols; c++) {
		xlsx_heading(head, sizeof(head), &t->cols[c]);
		worksheet_write_string(ws, 0, (lxw_col_t)c, head, f->header);
		width[c] = utf8_chars(head) + 2;	/* room for the filter button */
	}
	for (r = 0; r < t->nrows && !rc; r++)
		for (c = 0; c < t->ncols && !rc; c++) {
			const struct column *col = &t->cols[c];
			const struct cell *cl = &t->cells[r * (size_t)t->ncols + c];
			size_t w;
			rc = xlsx_cell(ws, f, (lxw_row_t)r + 1, (lxw_col_t)c, col, cl, sheet);
			if (cl->null)
				continue;
			w = col->type == C_TEXT ? utf8_chars(cl->s) : xlsx_num_chars(col, cl);
			if (w > width[c])
				width[c] = w;
		}
	for (c = 0; c < t->ncols; c++)
		xlsx_width(ws, (lxw_col_t)c, width[c]);
	free(width);
	if (rc || xlsx_frame(ws, t->ncols, t->nrows, sheet))
		return -1;
	/* The table's verdict (ranks') on the row after it. */
	if (t->footer && worksheet_write_string(ws, (lxw_row_t)t->nrows + 1, 0, t->footer, NULL) != LXW_NO_ERROR)
		return error("sheet '%s': cannot write a cell", sheet);
	for (i = 0; i < sizeof(xlsx_charts) / sizeof(xlsx_charts[0]); i++)
		if (!strcmp(xlsx_charts[i].table, t->name))
			xlsx_chart(wb, ws, sheet, t, &xlsx_charts[i]);
	return 0;
}

/* The workbook at `path`: a sheet per table that has rows (the summary always), in document order. */
int report_xlsx(FILE *out, const char *path, const struct report_doc *d)
{
	struct xlsx_formats f;
	lxw_workbook *wb;
	lxw_error err;
	int i, rc = 0;

	(void)out;
	if (!path)
		return error("the xlsx format writes a file: give -o PATH");
	if (!(wb = workbook_new(path)))
		return error("%s: cannot create the workbook", path);
	f.header = workbook_add_format(wb);
	format_set_bold(f.header);
	f.integer = workbook_add_format(wb);
	format_set_num_format(f.integer, "#,##0");
	f.real = workbook_add_format(wb);
	format_set_num_format(f.real, "#,##0.0");
	f.pct = workbook_add_format(wb);
	format_set_num_format(f.pct, "0.00");
	f.time = workbook_add_format(wb);
	format_set_num_format(f.time, "0");
	for (i = 0; i < d->ts->n && !rc; i++) {
		const struct table *t = d->ts->v[i];
		if (report_shown(t))
			rc = t->vertical ? xlsx_summary(wb, &f, t) : xlsx_table(wb, &f, t);
	}
	err = workbook_close(wb);	/* frees the workbook, also after an error */
	if (rc) {
		remove(path);	/* no half-written workbook */
		return -1;
	}
	if (err != LXW_NO_ERROR)
		return error("%s: cannot write the workbook: %s", path, lxw_strerror(err));
	return 0;
}
