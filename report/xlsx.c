/*
 * xlsx: the report as an Excel workbook (libxlsxwriter): the summary as a sheet of field/value pairs,
 * a sheet per other table with rows, in document order, and native charts for the ranked tables.
 *
 * Numbers stay numbers: durations in ns and sizes in bytes, the unit in the heading; a number format
 * only changes how they look: each duration column in the unit its largest value reads best in ("1.235
 * ms" for 1234567), each size column likewise ("12.30 MB"). An absolute time is two columns: an Excel
 * date-time (UTC, to the millisecond) and its Unix-epoch ns. Text is always written as a string, never a
 * formula, whatever it begins with. Excel numbers are doubles: integers beyond 2^53 (epoch ns) keep
 * about 16 significant digits.
 */
#include "outfile.h"
#include "report.h"
#include "utf8.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#define XLSX_MAX_ROWS 1048576	/* rows in a sheet, the header included */
#define XLSX_MAX_STRING 32767	/* characters in a cell */
#define XLSX_MAX_WIDTH 80	/* widest column, in characters */
#define XLSX_CHART_ROWS 10	/* bars in a chart */
#define XLSX_UNITS 5		/* number formats of durations (ns .. s) and sizes (B .. TB) */
#define XLSX_EPOCH_DAYS 25569.0	/* 1970-01-01 as an Excel date (days since 1899-12-30) */

/*
 * The number formats of durations and sizes, by scale (the value divided by 1000^k, by the k commas
 * that end the number part): the value stays ns or bytes, the cell shows "1.235 ms", "12.30 MB".
 */
static const char *const ns_formats[XLSX_UNITS] = {
	"#,##0 \"ns\"", "#,##0.000, \"us\"", "#,##0.000,, \"ms\"", "#,##0.000,,, \"s\"", "#,##0.000,,, \"s\"",
};
static const char *const bytes_formats[XLSX_UNITS] = {
	"#,##0 \"B\"", "#,##0.00, \"kB\"", "#,##0.00,, \"MB\"", "#,##0.00,,, \"GB\"", "#,##0.00,,,, \"TB\"",
};

/* The cell formats of one workbook, made once. */
struct xlsx_formats {
	lxw_format *header;	/* bold heading */
	lxw_format *integer;	/* "#,##0": counts */
	lxw_format *pct;	/* "0.00" */
	lxw_format *time;	/* "0": epoch ns, no separators */
	lxw_format *date;	/* "yyyy-mm-dd hh:mm:ss.000": a time as Excel shows dates */
	lxw_format *ns[XLSX_UNITS];	/* ns_formats */
	lxw_format *bytes[XLSX_UNITS];	/* bytes_formats */
};

/*
 * The native charts, chosen by the columns of a table (their keys and kinds), never by its name: a table
 * takes the first chart whose columns it all has, of their kinds: bars labelled by the first column, sized
 * by the others (stacked bars: a segment per value column), titled by the table's title. Charts with more
 * columns come before those with fewer whose columns they share (the ranks' before the devices').
 */
#define XLSX_CHART_COLS 5	/* a label column and at most 4 value columns */
static const struct xlsx_chart {
	struct xlsx_chart_col {
		const char *key;
		enum col_type type;
	} cols[XLSX_CHART_COLS];	/* the label, then the values; ended by a NULL key */
	const char *unless;	/* a column key: a table with it does not take the chart, or NULL */
	uint8_t type;
} xlsx_charts[] = {
	/* Per rank (GPU): compute, exposed communication, idle. */
	{ { { "rank", C_INT }, { "compute_ns", C_NS }, { "exposed_comm_ns", C_NS }, { "idle_ns", C_NS } },
	  NULL, LXW_CHART_BAR_STACKED },
	/* Per device: busy and idle time. */
	{ { { "device", C_INT }, { "busy_ns", C_NS }, { "idle_ns", C_NS } }, NULL, LXW_CHART_BAR_STACKED },
	/* Per device: GPU span and busy time. */
	{ { { "device", C_INT }, { "span_ns", C_NS }, { "busy_ns", C_NS } }, NULL, LXW_CHART_BAR },
	/* Per device: peak and live-at-end memory. */
	{ { { "device", C_INT }, { "peak_bytes", C_BYTES }, { "live_end_bytes", C_BYTES } }, NULL, LXW_CHART_BAR },
	/* Per device: GPU and memory utilisation (%). */
	{ { { "device", C_INT }, { "gpu_util_avg", C_PCT }, { "mem_util_avg", C_PCT } }, NULL, LXW_CHART_BAR },
	/* Per name: the launch pipeline's averages, API call, queue, kernel. */
	{ { { "name", C_TEXT }, { "api_avg_ns", C_NS }, { "queue_avg_ns", C_NS }, { "kernel_avg_ns", C_NS } },
	  NULL, LXW_CHART_BAR_STACKED },
	/* Per name: total time, baseline and new (a comparison). */
	{ { { "name", C_TEXT }, { "base_total_ns", C_NS }, { "new_total_ns", C_NS } }, NULL, LXW_CHART_BAR },
	/* Per name: total time and time waited (collectives). */
	{ { { "name", C_TEXT }, { "total_ns", C_NS }, { "wait_ns", C_NS } }, NULL, LXW_CHART_BAR },
	/* Per name: total time (kernels, API calls, NVTX ranges). */
	{ { { "name", C_TEXT }, { "total_ns", C_NS } }, NULL, LXW_CHART_BAR },
	/* Per kind: total time (copies and memsets, profiling overhead); not split further by stream, where
	 * the labels would repeat (host synchronization). */
	{ { { "kind", C_TEXT }, { "total_ns", C_NS } }, "stream", LXW_CHART_BAR },
	/* Per class: shares of the total time. */
	{ { { "class", C_TEXT }, { "total_ns", C_NS } }, NULL, LXW_CHART_PIE },
	/* Per queue time: kernels. */
	{ { { "queue", C_TEXT }, { "kernels", C_INT } }, NULL, LXW_CHART_BAR },
	/* Per quarter of the session: the wait's median, p90 and maximum. */
	{ { { "quarter", C_INT }, { "wait_med_ns", C_NS }, { "wait_p90_ns", C_NS }, { "wait_max_ns", C_NS } },
	  NULL, LXW_CHART_COLUMN },
	/* Per reason: samples (warp stalls). */
	{ { { "reason", C_TEXT }, { "samples", C_INT } }, NULL, LXW_CHART_BAR },
	/* Per site: bytes (unfreed memory). */
	{ { { "site", C_TEXT }, { "bytes", C_BYTES } }, NULL, LXW_CHART_BAR },
	/* Per start: the gap (GPU idle gaps). */
	{ { { "start_ns", C_TIME }, { "gap_ns", C_NS } }, NULL, LXW_CHART_BAR },
};
#define XLSX_NCHARTS (sizeof(xlsx_charts) / sizeof(xlsx_charts[0]))

/* The sheet column of table column c: each time before it takes two (its date-time, then its ns). */
static lxw_col_t xlsx_col(const struct table *t, int c)
{
	int i, n = c;
	for (i = 0; i < c; i++)
		n += t->cols[i].type == C_TIME;
	return (lxw_col_t)n;
}

/* The scale (0: ns or bytes, 1: thousands, ...) column c's largest magnitude reads best in. */
static int xlsx_scale(const struct table *t, int c)
{
	double max = 0, v;
	size_t r;
	int k = 0;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *cl = &t->cells[r * (size_t)t->ncols + c];
		v = cl->null ? 0 : cl->is_real ? cl->d : (double)cl->i;
		if (v < 0)
			v = -v;
		if (v > max)
			max = v;
	}
	while (k < XLSX_UNITS - 1 && max >= 1000.0) {
		max /= 1000.0;
		k++;
	}
	return t->cols[c].type == C_NS && k > 3 ? 3 : k;	/* seconds at most */
}

/* The heading of a column: its title and unit, "Total (ns)". */
static void xlsx_heading(char *out, size_t n, const struct column *c)
{
	const char *unit = "";
	switch (c->type) {
	case C_NS: unit = " (ns)"; break;
	case C_TIME: unit = " (epoch ns)"; break;	/* its date-time's heading: title (UTC) */
	case C_BYTES: unit = " (B)"; break;
	case C_PCT: unit = strchr(c->title, '%') ? "" : " (%)"; break;
	default: break;
	}
	snprintf(out, n, "%s%s", c->title, unit);
}

/* Characters a number takes with its format (scale: xlsx_scale's): digits, separators, sign, decimals, unit. */
static size_t xlsx_num_chars(const struct column *col, const struct cell *c, int scale)
{
	char tmp[64];
	size_t digits;
	double v = c->is_real ? c->d : (double)c->i;
	int k;
	if (col->type == C_NS || col->type == C_BYTES)
		for (k = 0; k < scale; k++)
			v /= 1000.0;
	snprintf(tmp, sizeof(tmp), "%.0f", v < 0 ? -v : v);
	digits = strlen(tmp);
	if (col->type == C_TIME)
		return digits;
	if (col->type == C_PCT || col->type == C_REAL)
		return digits + 4;
	digits += (digits - 1) / 3 + (v < 0);
	if (col->type == C_NS || col->type == C_BYTES)
		return digits + (scale ? 4 : 0) + 3;	/* ".000" and " ms" */
	return digits + (c->is_real ? 2 : 0);
}

static lxw_format *xlsx_format(const struct xlsx_formats *f, const struct column *col, int scale)
{
	switch (col->type) {
	case C_TIME: return f->time;
	case C_PCT: return f->pct;
	case C_REAL: return NULL;
	case C_NS: return f->ns[scale];
	case C_BYTES: return f->bytes[scale];
	default: return f->integer;
	}
}

/*
 * Text as a sheet shows it, into b (reset first): control characters, which XML 1.0 does not allow and which
 * would make the sheet's and a chart's XML not well formed, as the visible "\x1b" (utf8_visible). Returns b->s.
 */
static const char *xlsx_text(struct buf *b, const char *s)
{
	buf_reset(b);
	utf8_visible(b, s, strlen(s));
	return b->s;
}

/* The characters xlsx_text shows of s, for a column's width. */
static size_t xlsx_text_chars(const char *s)
{
	struct buf b;
	size_t n;
	buf_init(&b);
	n = utf8_chars(xlsx_text(&b, s));
	buf_release(&b);
	return n;
}

/* xlsx_cell's one cell: the value itself (a time's ns). */
static int xlsx_value(lxw_worksheet *ws, const struct xlsx_formats *f, lxw_row_t row, lxw_col_t col,
		      const struct column *c, const struct cell *cl, int scale, const char *sheet)
{
	lxw_error err;
	if (cl->null)
		return 0;
	if (c->type == C_TEXT) {
		struct buf shown;
		buf_init(&shown);
		err = worksheet_write_string(ws, row, col, xlsx_text(&shown, cl->s), NULL);
		if (err == LXW_ERROR_MAX_STRING_LENGTH_EXCEEDED) {
			char *cut = xstrdup(shown.s);
			size_t n = strlen(cut), chars = 0, i;
			for (i = 0; i < n; i++)
				if (((unsigned char)cut[i] & 0xC0) != 0x80 && ++chars > XLSX_MAX_STRING)
					break;
			cut[i < n ? i : n] = '\0';
			err = worksheet_write_string(ws, row, col, cut, NULL);
			free(cut);
		}
		buf_release(&shown);
	} else {
		double v = cl->is_real ? cl->d : (double)cl->i;
		err = worksheet_write_number(ws, row, col, v, xlsx_format(f, c, scale));
	}
	if (err != LXW_NO_ERROR)
		return error("sheet '%s': cannot write a cell: %s", sheet, lxw_strerror(err));
	return 0;
}

/* A time as an Excel date-time (UTC, to the millisecond) at (row, col); NULL stays empty. 0, or -1. */
static int xlsx_date(lxw_worksheet *ws, const struct xlsx_formats *f, lxw_row_t row, lxw_col_t col,
		     const struct cell *cl, const char *sheet)
{
	int64_t ns = cl->is_real ? (int64_t)cl->d : cl->i;
	double days = XLSX_EPOCH_DAYS + (double)(ns / 1000000) / 86400000.0;
	if (!cl->null && worksheet_write_number(ws, row, col, days, f->date) != LXW_NO_ERROR)
		return error("sheet '%s': cannot write a cell", sheet);
	return 0;
}

/*
 * Write one cell at (row, col): NULL stays empty, text as a string (cut at a character boundary when
 * longer than Excel allows), numbers as numbers in the column's scale. A time takes two cells, (row, col)
 * its date-time and (row, col + 1) its ns. Returns 0, or -1 with a message.
 */
static int xlsx_cell(lxw_worksheet *ws, const struct xlsx_formats *f, lxw_row_t row, lxw_col_t col,
		     const struct column *c, const struct cell *cl, int scale, const char *sheet)
{
	if (c->type == C_TIME && xlsx_date(ws, f, row, col++, cl, sheet))
		return -1;
	return xlsx_value(ws, f, row, col, c, cl, scale, sheet);
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

/* A time's two headings: its date-time's, "Start (UTC)", and its ns', "Start (epoch ns)". */
static void xlsx_date_heading(char *out, size_t n, const struct column *c)
{
	snprintf(out, n, "%s (UTC)", c->title);
}

#define XLSX_DATE_CHARS 23	/* "2025-11-22 14:33:58.892" */

/*
 * The summary (a one-row table) as two columns, field and value; a time takes two rows, its date-time and
 * its ns. Returns 0, or -1 with a message.
 */
static int xlsx_summary(lxw_workbook *wb, const struct xlsx_formats *f, const struct table *t)
{
	char sheet[32], head[512];
	lxw_worksheet *ws;
	size_t wfield = 5, wvalue = XLSX_DATE_CHARS;
	lxw_row_t row = 1;
	int c;

	xlsx_sheet_name(sheet, sizeof(sheet), t->name);
	if (!(ws = workbook_add_worksheet(wb, sheet)))
		return error("cannot add the sheet '%s'", sheet);
	worksheet_write_string(ws, 0, 0, "Field", f->header);
	worksheet_write_string(ws, 0, 1, "Value", f->header);
	for (c = 0; c < t->ncols; c++) {
		const struct column *col = &t->cols[c];
		const struct cell *cl = t->nrows > 0 ? &t->cells[c] : NULL;
		int scale = xlsx_scale(t, c);
		if (col->type == C_TIME) {
			xlsx_date_heading(head, sizeof(head), col);
			if (worksheet_write_string(ws, row, 0, head, NULL) != LXW_NO_ERROR)
				return error("sheet '%s': cannot write a cell", sheet);
			if (cl && xlsx_date(ws, f, row, 1, cl, sheet))
				return -1;
			row++;
		}
		xlsx_heading(head, sizeof(head), col);
		if (worksheet_write_string(ws, row, 0, head, NULL) != LXW_NO_ERROR)
			return error("sheet '%s': cannot write a cell", sheet);
		if (utf8_chars(head) > wfield)
			wfield = utf8_chars(head);
		if (cl) {
			size_t w;
			if (xlsx_value(ws, f, row, 1, col, cl, scale, sheet))
				return -1;
			w = cl->null ? 0 : col->type == C_TEXT ? xlsx_text_chars(cl->s) : xlsx_num_chars(col, cl, scale);
			if (w > wvalue)
				wvalue = w;
		}
		row++;
	}
	xlsx_width(ws, 0, wfield);
	xlsx_width(ws, 1, wvalue);
	return xlsx_frame(ws, 2, (size_t)row - 1, sheet);
}

/* Whether t has every column of chart c, of its kind, and not its `unless` column. */
static int xlsx_chart_fits(const struct xlsx_chart *c, const struct table *t)
{
	int k, col;
	if (c->unless && table_find_col(t, c->unless) >= 0)
		return 0;
	for (k = 0; k < XLSX_CHART_COLS && c->cols[k].key; k++)
		if ((col = table_find_col(t, c->cols[k].key)) < 0 || t->cols[col].type != c->cols[k].type)
			return 0;
	return 1;
}

/*
 * A native chart of the table's leading rows, below the table: one bar or slice per row, labelled by the
 * chart's first column, sized by the others (stacked bars: a segment per value column), titled by the
 * table's title. It takes at most XLSX_CHART_ROWS rows and stops at a row without a value or a total row
 * ("all"), so parts are never drawn beside their sum. Does nothing if there is no such row. The table has
 * the chart's columns (xlsx_chart_fits).
 */
static void xlsx_chart(lxw_workbook *wb, lxw_worksheet *ws, const char *sheet, const struct table *t,
		       const struct xlsx_chart *spec)
{
	int lc = table_find_col(t, spec->cols[0].key), vc[XLSX_CHART_COLS - 1], nv = 0, k;
	lxw_chart_options opt = { .x_scale = 2.0, .y_scale = 1.5 };
	lxw_chart_series *series = NULL;
	lxw_chart *ch;
	lxw_row_t last = 0;
	struct buf title;

	while (nv + 1 < XLSX_CHART_COLS && spec->cols[nv + 1].key) {	/* the value columns */
		vc[nv] = table_find_col(t, spec->cols[nv + 1].key);
		nv++;
	}
	if (lc < 0 || !nv)
		return;
	while (last < t->nrows && last < XLSX_CHART_ROWS) {
		const struct cell *label = &t->cells[last * (size_t)t->ncols + lc];
		int values = 0;
		for (k = 0; k < nv; k++)
			values += !t->cells[last * (size_t)t->ncols + vc[k]].null;
		if (!values || (!label->null && label->s && !strcmp(label->s, "all")))
			break;
		last++;
	}
	if (last == 0 || !(ch = workbook_add_chart(wb, spec->type)))
		return;
	for (k = 0; k < nv; k++) {
		lxw_col_t lcol = xlsx_col(t, lc), vcol = xlsx_col(t, vc[k]) + (t->cols[vc[k]].type == C_TIME);
		series = chart_add_series(ch, NULL, NULL);
		chart_series_set_categories(series, sheet, 1, lcol, last, lcol);	/* a time: its date-time */
		chart_series_set_values(series, sheet, 1, vcol, last, vcol);
		chart_series_set_name(series, t->cols[vc[k]].title);
	}
	buf_init(&title);
	xlsx_text(&title, t->title ? t->title : t->name);
	if (title.s[0] != '=')	/* which libxlsxwriter would take for a formula */
		chart_title_set_name(ch, title.s);
	buf_release(&title);
	if (spec->type == LXW_CHART_BAR || spec->type == LXW_CHART_BAR_STACKED) {
		chart_legend_set_position(ch, nv > 1 ? LXW_CHART_LEGEND_BOTTOM : LXW_CHART_LEGEND_NONE);
		chart_axis_set_reverse(ch->y_axis);	/* the first row on top */
	} else if (spec->type == LXW_CHART_PIE) {
		chart_legend_set_position(ch, LXW_CHART_LEGEND_RIGHT);
		chart_series_set_labels_percentage(series);
	} else {
		chart_legend_set_position(ch, nv > 1 ? LXW_CHART_LEGEND_BOTTOM : LXW_CHART_LEGEND_NONE);
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
	int c, rc = 0, *scale, ncols = (int)xlsx_col(t, t->ncols);
	unsigned i;

	if (t->nrows >= XLSX_MAX_ROWS)
		return error("table '%s' has %zu rows, more than a sheet holds", t->name, t->nrows);
	xlsx_sheet_name(sheet, sizeof(sheet), t->name);
	if (!(ws = workbook_add_worksheet(wb, sheet)))
		return error("cannot add the sheet '%s'", sheet);
	width = xcalloc((size_t)ncols, sizeof(*width));
	scale = xcalloc((size_t)t->ncols, sizeof(*scale));
	for (c = 0; c < t->ncols; c++) {
		lxw_col_t sc = xlsx_col(t, c);
		if (t->cols[c].type == C_TIME) {
			xlsx_date_heading(head, sizeof(head), &t->cols[c]);
			worksheet_write_string(ws, 0, sc, head, f->header);
			width[sc++] = utf8_chars(head) + 2 > XLSX_DATE_CHARS ? utf8_chars(head) + 2 : XLSX_DATE_CHARS;
		}
		xlsx_heading(head, sizeof(head), &t->cols[c]);
		worksheet_write_string(ws, 0, sc, head, f->header);
		width[sc] = utf8_chars(head) + 2;	/* room for the filter button */
		scale[c] = xlsx_scale(t, c);
	}
	for (r = 0; r < t->nrows && !rc; r++)
		for (c = 0; c < t->ncols && !rc; c++) {
			const struct column *col = &t->cols[c];
			const struct cell *cl = &t->cells[r * (size_t)t->ncols + c];
			lxw_col_t sc = xlsx_col(t, c) + (col->type == C_TIME);	/* the value's column */
			size_t w;
			rc = xlsx_cell(ws, f, (lxw_row_t)r + 1, xlsx_col(t, c), col, cl, scale[c], sheet);
			if (cl->null)
				continue;
			w = col->type == C_TEXT ? xlsx_text_chars(cl->s) : xlsx_num_chars(col, cl, scale[c]);
			if (w > width[sc])
				width[sc] = w;
		}
	for (c = 0; c < ncols; c++)
		xlsx_width(ws, (lxw_col_t)c, width[c]);
	free(width);
	free(scale);
	if (rc || xlsx_frame(ws, ncols, t->nrows, sheet))
		return -1;
	/* The table's verdict (ranks') on the row after it. */
	if (t->footer) {
		struct buf shown;
		lxw_error err;
		buf_init(&shown);
		err = worksheet_write_string(ws, (lxw_row_t)t->nrows + 1, 0, xlsx_text(&shown, t->footer), NULL);
		buf_release(&shown);
		if (err != LXW_NO_ERROR)
			return error("sheet '%s': cannot write a cell", sheet);
	}
	for (i = 0; i < XLSX_NCHARTS; i++)
		if (xlsx_chart_fits(&xlsx_charts[i], t)) {
			xlsx_chart(wb, ws, sheet, t, &xlsx_charts[i]);
			break;
		}
	return 0;
}

/* The workbook at `path`: a sheet per table that has rows (the summary always), in document order. */
int report_xlsx(FILE *out, const char *path, const struct report_doc *d)
{
	struct xlsx_formats f;
	struct outfile of;
	lxw_workbook *wb;
	lxw_error err;
	int i, rc = 0;

	(void)out;
	if (!path)
		return error("the xlsx format writes a file: give -o PATH");
	/* Written aside and renamed once whole: a failure or an interrupt leaves PATH as it was. */
	if (outfile_reserve(&of, path))
		return -1;
	if (!(wb = workbook_new(outfile_name(&of)))) {
		outfile_abort(&of);
		return error("%s: cannot create the workbook", path);
	}
	f.header = workbook_add_format(wb);
	format_set_bold(f.header);
	f.integer = workbook_add_format(wb);
	format_set_num_format(f.integer, "#,##0");
	for (i = 0; i < XLSX_UNITS; i++) {
		f.ns[i] = workbook_add_format(wb);
		format_set_num_format(f.ns[i], ns_formats[i]);
		f.bytes[i] = workbook_add_format(wb);
		format_set_num_format(f.bytes[i], bytes_formats[i]);
	}
	f.date = workbook_add_format(wb);
	format_set_num_format(f.date, "yyyy-mm-dd hh:mm:ss.000");
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
	if (rc || err != LXW_NO_ERROR) {
		outfile_abort(&of);	/* no half-written workbook */
		return rc ? -1 : error("%s: cannot write the workbook: %s", path, lxw_strerror(err));
	}
	return outfile_commit(&of);
}
