/*
 * html: the report as one self-contained HTML file. Every result table becomes an HTML table (numbers
 * in human form, the exact value in data-v for sorting and in title), with inline SVG charts: top
 * kernels, the timeline (timeline.c: NVTX rows per thread, stream lanes per GPU), live device memory,
 * and device metrics. The style sheet is report/report.css, click-to-sort on table headers report/sort.js
 * and the timeline's zoom report/timeline.js, embedded at build time and inlined; nothing is loaded from
 * the network and the page reads without JavaScript.
 *
 * Which chart goes where is decided by the tables' columns, their keys and kinds (charts[]), not by the
 * tables' names. Charts that need more than the tables read the views of analyze/timeline.sql (rows.h;
 * this file holds no SQL) and aggregate into NB pixel-wide buckets in one pass, so the file stays small
 * and rendering fast whatever the number of events.
 */
#include "db.h"
#include "html.h"
#include "embed.h"
#include "rows.h"
#include "utf8.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSERIES 8		/* colours for per-device series (.s0 .. .s7) */

void html_esc(FILE *out, const char *s)
{
	const char *p;
	struct buf b;
	buf_init(&b);
	if (utf8_needs_escape(s, strlen(s))) {
		utf8_visible(&b, s, strlen(s));
		s = b.s;
	}
	for (p = s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out);
		}
	}
	buf_release(&b);
}

static const char *unit_of(enum col_type t)
{
	return t == C_NS || t == C_TIME ? " ns" : t == C_BYTES ? " bytes" : "";
}

/*
 * A long text cell: up to HTML_NAME_MAX characters as they are; a longer name (a C++ template's) cut in the
 * middle, its whole in the title (hover) and in a <details> the cut name opens, so a row stays a line or two.
 */
static void write_name_cell(FILE *out, const char *s)
{
	char cut[HTML_NAME_MAX * 4 + 8];
	table_cut_middle(cut, sizeof(cut), s, HTML_NAME_MAX);
	if (!strcmp(cut, s)) {
		fputs("<td class=\"name\">", out);
		html_esc(out, s);
		fputs("</td>", out);
		return;
	}
	fputs("<td class=\"name\" title=\"", out);
	html_esc(out, s);
	fputs("\"><details><summary>", out);
	html_esc(out, cut);
	fputs("</summary>", out);
	html_esc(out, s);
	fputs("</details></td>", out);
}

/* One <td>: text escaped; numbers right-aligned with data-v (sorting) and title (the exact value). */
static void write_cell(FILE *out, const struct column *col, const struct cell *c)
{
	char h[128];
	struct buf x;
	if (col->type == C_TEXT) {
		if (c->null || !c->s)
			fputs("<td class=\"null\">-</td>", out);
		else if (strlen(c->s) <= 32) {
			fputs("<td class=\"txt\">", out);
			html_esc(out, c->s);
			fputs("</td>", out);
		} else
			write_name_cell(out, c->s);
		return;
	}
	if (c->null) {
		fputs("<td class=\"num null\" data-v=\"\">-</td>", out);
		return;
	}
	table_human(h, sizeof(h), col, c);
	buf_init(&x);
	table_raw(&x, c);
	fprintf(out, "<td class=\"num\" data-v=\"%s\" title=\"%s%s\">", x.s, x.s, unit_of(col->type));
	buf_release(&x);
	html_esc(out, h);
	fputs("</td>", out);
}

/* A table as an HTML table under a heading: one header row, or (vertical tables) one row per column. */
static void write_table(FILE *out, const struct table *t)
{
	size_t r;
	int c;
	fputs("<section id=\"t-", out);
	html_esc(out, t->name);
	fputs("\"><h2>", out);
	html_esc(out, t->title);
	fputs("</h2>\n", out);
	if (t->note) {
		fputs("<p class=\"note\">", out);
		html_esc(out, t->note);
		fputs("</p>\n", out);
	}
	fputs("<div class=\"scroll\">", out);
	if (t->vertical && t->nrows == 1) {
		fputs("<table class=\"kv\">\n<tbody>\n", out);
		for (c = 0; c < t->ncols; c++) {
			fputs("<tr><th>", out);
			html_esc(out, t->cols[c].title);
			fputs("</th>", out);
			write_cell(out, &t->cols[c], &t->cells[c]);
			fputs("</tr>\n", out);
		}
		fputs("</tbody></table></div></section>\n", out);
		return;
	}
	fputs("<table class=\"sortable\">\n<thead><tr>", out);
	for (c = 0; c < t->ncols; c++) {
		fputs(t->cols[c].type == C_TEXT ? "<th title=\"" : "<th class=\"num\" title=\"", out);
		html_esc(out, t->cols[c].key);
		fputs("\">", out);
		html_esc(out, t->cols[c].title);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (r = 0; r < t->nrows; r++) {
		fputs("<tr>", out);
		for (c = 0; c < t->ncols; c++)
			write_cell(out, &t->cols[c], &t->cells[r * (size_t)t->ncols + (size_t)c]);
		fputs("</tr>\n", out);
	}
	if (t->nrows == 0)
		fprintf(out, "<tr><td colspan=\"%d\" class=\"null\">no data</td></tr>\n", t->ncols);
	fputs("</tbody></table></div>", out);
	if (t->footer) {
		fputs("<p class=\"verdict\">", out);
		html_esc(out, t->footer);
		fputs("</p>", out);
	}
	fputs("</section>\n", out);
}

void html_chart_open(FILE *out, const char *cls, int w, double h, const char *label)
{
	fprintf(out, "<div class=\"scroll\"><svg class=\"%s\" viewBox=\"0 0 %d %.0f\" style=\"min-width:%dpx\" "
		"role=\"img\" aria-label=\"", cls, w, h, w);
	html_esc(out, label);
	fputs("\">\n", out);
}

void html_short_name(char *out, size_t n, const char *name)
{
	size_t k = n - 7;
	if (strlen(name) <= n - 4) {
		snprintf(out, n, "%s", name);
		return;
	}
	while (k > 0 && ((unsigned char)name[k] & 0xC0) == 0x80)
		k--;
	snprintf(out, n, "%.*s...", (int)k, name);
}

/* The labels of a chart of t's rows: column cn's names cut as text tables cut them (never two alike). */
static char **chart_labels(const struct table *t, int cn)
{
	const char **names = xcalloc(t->nrows ? t->nrows : 1, sizeof(*names));
	char **labels;
	size_t r;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *nc = &t->cells[r * (size_t)t->ncols + (size_t)cn];
		names[r] = nc->null || !nc->s ? "-" : nc->s;
	}
	labels = table_cut_names(names, t->nrows, SHORT_NAME - 4);
	free(names);
	return labels;
}

/* Bars: the rows' names (the kernels by total time) as horizontal bars of their total time. */
static int chart_totals(FILE *out, const struct report_doc *d, const struct table *t, int64_t t0, int64_t t1)
{
	int cn, ct, bar_h = 22, w = 720, name_w = 500;
	size_t r;
	double max = 0;
	char **labels;
	(void)d;
	(void)t0;
	(void)t1;
	if (!t->nrows || (cn = table_find_col(t, "name")) < 0 || (ct = table_find_col(t, "total_ns")) < 0)
		return 0;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *c = &t->cells[r * (size_t)t->ncols + (size_t)ct];
		if (!c->null && c->d > max)
			max = c->d;
	}
	if (max <= 0)
		return 0;
	fputs("<section id=\"c-hotspots\"><h2>Top kernels by total time</h2>\n", out);
	html_chart_open(out, "chart", name_w + w + 90, (double)(t->nrows * (size_t)bar_h + 4), "Top kernels by total time");
	labels = chart_labels(t, cn);
	for (r = 0; r < t->nrows; r++) {
		const struct cell *nc = &t->cells[r * (size_t)t->ncols + (size_t)cn];
		const struct cell *tc = &t->cells[r * (size_t)t->ncols + (size_t)ct];
		const char *name = nc->null || !nc->s ? "-" : nc->s;
		char h[64];
		double v = tc->null ? 0 : tc->d, bw = v / max * (w - 10);
		size_t y = r * (size_t)bar_h;
		fmt_ns(h, sizeof(h), v);
		fputs("<g><title>", out);
		html_esc(out, name);
		fprintf(out, ": %s</title>", h);
		fprintf(out, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", name_w - 6, y + 15);
		html_esc(out, labels[r]);
		fprintf(out, "</text><rect class=\"bar\" x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\"/>",
			name_w, y + 3, bw > 0.5 ? bw : 0.5, bar_h - 6);
		fprintf(out, "<text x=\"%.1f\" y=\"%zu\" class=\"muted\">%s</text></g>\n", name_w + bw + 6, y + 15, h);
	}
	table_cut_names_free(labels, t->nrows);
	fputs("</svg></div></section>\n", out);
	return 0;
}

/*
 * Shares: each row's samples split by its percentage columns (the stall reasons of a kernel) as a stacked
 * bar, one segment per column, a legend of the columns above.
 */
static int chart_shares(FILE *out, const struct report_doc *d, const struct table *t, int64_t t0, int64_t t1)
{
	int cn, c, bar_h = 22, w = 720, name_w = 500, nreasons = 0, legend_h;
	size_t r;
	char **labels;
	(void)d;
	(void)t0;
	(void)t1;
	if (!t->nrows || (cn = table_find_col(t, "name")) < 0)
		return 0;
	for (c = 0; c < t->ncols; c++)
		nreasons += t->cols[c].type == C_PCT;
	if (nreasons > 8)
		nreasons = 8;	/* one colour each; the rest of a bar is the other reasons */
	legend_h = 18 * ((nreasons + 4) / 5);
	fputs("<section id=\"c-stalls\"><h2>Stall mix per kernel</h2>\n", out);
	html_chart_open(out, "chart", name_w + w + 20, (double)((size_t)legend_h + t->nrows * (size_t)bar_h + 8),
			"Stall mix per kernel");
	for (c = 0, r = 0; c < t->ncols && (int)r < nreasons; c++) {
		if (t->cols[c].type != C_PCT)
			continue;
		fprintf(out, "<rect class=\"s%zu\" x=\"%zu\" y=\"%zu\" width=\"12\" height=\"12\"/><text x=\"%zu\" y=\"%zu\">",
			r % 8, (r % 5) * 240 + 4, (r / 5) * 18 + 2, (r % 5) * 240 + 22, (r / 5) * 18 + 12);
		html_esc(out, t->cols[c].title);
		fputs("</text>\n", out);
		r++;
	}
	labels = chart_labels(t, cn);
	for (r = 0; r < t->nrows; r++) {
		const struct cell *nc = &t->cells[r * (size_t)t->ncols + (size_t)cn];
		const char *name = nc->null || !nc->s ? "-" : nc->s;
		size_t y = (size_t)legend_h + r * (size_t)bar_h, k = 0;
		double x = name_w;
		fprintf(out, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\"><title>", name_w - 6, y + 15);
		html_esc(out, name);
		fputs("</title>", out);
		html_esc(out, labels[r]);
		fputs("</text>", out);
		for (c = 0; c < t->ncols && (int)k < nreasons; c++) {
			const struct cell *v = &t->cells[r * (size_t)t->ncols + (size_t)c];
			double bw;
			if (t->cols[c].type != C_PCT)
				continue;
			if (!v->null && v->d > 0) {
				bw = v->d / 100.0 * w;
				fprintf(out, "<rect class=\"s%zu\" x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"%d\"><title>",
					k % 8, x, y + 3, bw, bar_h - 6);
				html_esc(out, t->cols[c].title);
				fprintf(out, ": %.1f %%</title></rect>", v->d);
				x += bw;
			}
			k++;
		}
		fputs("\n", out);
	}
	table_cut_names_free(labels, t->nrows);
	fputs("</svg></div><p class=\"note\">Shares of each kernel&#39;s samples for the reasons sampled most overall; "
	      "the rest of a bar is other reasons.</p></section>\n", out);
	return 0;
}

/* A numeric cell of row r, column key, as a double; 0 when NULL or absent. */
static double cell_num(const struct table *t, size_t r, const char *key)
{
	int c = table_find_col(t, key);
	const struct cell *v = c < 0 ? NULL : &t->cells[r * (size_t)t->ncols + (size_t)c];
	return !v || v->null ? 0 : v->is_real ? v->d : (double)v->i;
}

/*
 * Spans: per row (a rank's GPU), its GPU span as a stacked bar: compute, communication no compute hid
 * (exposed), the rest of the busy time (copies, memsets, other kernels) and idle; a straggler's label is
 * marked. The segments add up to the span.
 */
static int chart_spans(FILE *out, const struct report_doc *d, const struct table *t, int64_t t0, int64_t t1)
{
	static const char *const seg[] = { "compute", "exposed communication", "other busy", "GPU idle" };
	int bar_h = 22, w = 1000, name_w = 220, k, cr = table_find_col(t, "rank");
	int ch = table_find_col(t, "host"), cd = table_find_col(t, "device");
	size_t r;
	double max = 0;
	(void)d;
	(void)t0;
	(void)t1;
	if (!t->nrows || cd < 0)
		return 0;
	for (r = 0; r < t->nrows; r++)
		if (cell_num(t, r, "span_ns") > max)
			max = cell_num(t, r, "span_ns");
	if (max <= 0)
		return 0;
	fputs("<section id=\"c-ranks\"><h2>Per rank: compute, exposed communication, idle</h2>\n<p class=\"legend\">", out);
	for (k = 0; k < 4; k++)
		fprintf(out, "<span><i class=\"c%d\"></i>%s</span>", k == 3 ? 7 : k, seg[k]);
	fputs("</p>\n", out);
	html_chart_open(out, "chart", name_w + w + 90, (double)(t->nrows * (size_t)bar_h + 4), "Per rank GPU time");
	for (r = 0; r < t->nrows; r++) {
		const struct cell *rank = cr >= 0 ? &t->cells[r * (size_t)t->ncols + (size_t)cr] : NULL;
		const struct cell *host = ch >= 0 ? &t->cells[r * (size_t)t->ncols + (size_t)ch] : NULL;
		double compute = cell_num(t, r, "compute_ns"), exposed = cell_num(t, r, "exposed_comm_ns");
		double idle = cell_num(t, r, "idle_ns"), busy = cell_num(t, r, "busy_ns"), x = name_w;
		double v[4], span = cell_num(t, r, "span_ns");
		size_t y = r * (size_t)bar_h;
		char label[160], h[64];
		v[0] = compute;
		v[1] = exposed;
		v[2] = busy - compute - exposed > 0 ? busy - compute - exposed : 0;
		v[3] = idle;
		if (rank && !rank->null)
			snprintf(label, sizeof(label), "rank %lld", (long long)rank->i);
		else
			snprintf(label, sizeof(label), "%s%sGPU %lld", host && !host->null ? host->s : "",
				 host && !host->null ? " " : "", (long long)cell_num(t, r, "device"));
		if (cell_num(t, r, "straggler") > 0)
			snprintf(label + strlen(label), sizeof(label) - strlen(label), " (straggler)");
		fprintf(out, "<g><text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", name_w - 6, y + 15);
		html_esc(out, label);
		fputs("</text>", out);
		for (k = 0; k < 4; k++) {
			double bw = v[k] / max * (w - 10);
			if (bw <= 0)
				continue;
			fmt_ns(h, sizeof(h), v[k]);
			fprintf(out, "<rect class=\"s%d\" x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"%d\"><title>", k == 3 ? 7 : k, x,
				y + 3, bw, bar_h - 6);
			html_esc(out, label);
			fprintf(out, ": %s %s</title></rect>", seg[k], h);
			x += bw;
		}
		fmt_ns(h, sizeof(h), span);
		fprintf(out, "<text x=\"%.1f\" y=\"%zu\" class=\"muted\">%s</text></g>\n", x + 6, y + 15, h);
	}
	fputs("</svg></div></section>\n", out);
	return 0;
}

/* timeline_span's row: the session's time span [*t0, *t1] (the events' extent when it has none). */
static int span_row(void *ctx, sqlite3_stmt *st)
{
	int64_t *t = ctx;
	t[0] = sqlite3_column_int64(st, 0);
	t[1] = sqlite3_column_int64(st, 1);
	return 0;
}

void html_time_axis(FILE *out, double y, double h, double span)
{
	int i;
	for (i = 0; i <= 4; i++) {
		char lab[64];
		double x = LABEL_W + NB * i / 4.0;
		fmt_ns(lab, sizeof(lab), span * i / 4.0);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\"/>", x, x, y);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"muted\">+%s</text>\n", x, y + h,
			i == 0 ? "start" : i == 4 ? "end" : "middle", lab);
	}
}

struct mem_dev {
	int64_t device;
	double max[NB];		/* highest live bytes within each bucket */
	int seen[NB];		/* whether the bucket had an event */
	double live, peak, lo;	/* running value, its highest and lowest */
	int64_t peak_ts;
};

/*
 * Chart 3: live bytes per device over time, downsampled by the maximum within each bucket so the peak
 * survives, the peak marked. Live bytes are the source's own running total when every event of the
 * device carries one (allocations made before the capture), else the running sum of allocations
 * minus frees.
 */
static int chart_memory(FILE *out, const struct report_doc *d, const struct table *t, int64_t t0, int64_t t1)
{
	struct mem_dev **devs = NULL, *cur = NULL;
	size_t ndevs = 0, alloc = 0, i;
	double span = (double)(t1 - t0);
	sqlite3_stmt *st;
	int rc, ret = 0, b;
	(void)t;
	if (span <= 0)
		return 0;
	if (!(st = rows_open(d->db, "timeline_memory")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
		int64_t ts = sqlite3_column_int64(st, 1);
		double bytes = (double)sqlite3_column_int64(st, 3);
		if (!cur || cur->device != dev) {
			ALLOC_GROW(devs, ndevs + 1, alloc);
			cur = devs[ndevs++] = xcalloc(1, sizeof(struct mem_dev));
			cur->device = dev;
			cur->peak = -INFINITY;
		}
		if (sqlite3_column_int(st, 5))
			cur->live = (double)sqlite3_column_int64(st, 4);
		else
			cur->live += sqlite3_column_int(st, 2) == 1 ? bytes : -bytes;
		b = (int)((double)(ts - t0) / span * NB);
		b = b < 0 ? 0 : b >= NB ? NB - 1 : b;
		if (!cur->seen[b] || cur->live > cur->max[b])
			cur->max[b] = cur->live;
		cur->seen[b] = 1;
		if (cur->live > cur->peak) {
			cur->peak = cur->live;
			cur->peak_ts = ts;
		}
		if (cur->live < cur->lo)
			cur->lo = cur->live;
	}
	ret = rows_end(st, rc);
	if (ret || !ndevs)
		goto done;
	fputs("<section id=\"c-memory\"><h2>Device memory: live bytes over time</h2>\n"
	      "<p class=\"sub\">The highest value within each pixel; the peak is marked.</p>\n", out);
	for (i = 0; i < ndevs; i++) {
		struct mem_dev *m = devs[i];
		const double h = 160;
		double top = m->peak > 0 ? m->peak * 1.15 : 1, lo = m->lo, v = 0, px, py;
		char lab[64], pk[64], when[64];
		int started = 0;
		fprintf(out, "<h3>Device %lld</h3>\n", (long long)m->device);
		snprintf(lab, sizeof(lab), "Live memory of device %lld", (long long)m->device);
		html_chart_open(out, "chart", LABEL_W + NB + 10, h + 22, lab);
		html_time_axis(out, h, 14, span);
		fmt_bytes(lab, sizeof(lab), top);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"0\"/>"
			"<text x=\"%d\" y=\"10\" text-anchor=\"end\" class=\"muted\">%s</text>", LABEL_W, LABEL_W + NB,
			LABEL_W - 6, lab);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\"/>"
			"<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" class=\"muted\">0 B</text>\n", LABEL_W, h,
			LABEL_W + NB, h, LABEL_W - 6, h - (0 - lo) / (top - lo) * h);
		/* A step line through each bucket's maximum, carried over empty buckets, closed into an area. */
		fputs("<path class=\"area\" d=\"", out);
		for (b = 0; b < NB; b++) {
			if (!m->seen[b] && !started)
				continue;
			if (m->seen[b])
				v = m->max[b];
			py = h - (v - lo) / (top - lo) * h;
			if (!started) {
				fprintf(out, "M%d %.1fV%.1f", LABEL_W + b, h, py);
				started = 1;
			} else
				fprintf(out, "V%.1f", py);
			fprintf(out, "H%d", LABEL_W + b + 1);
		}
		fprintf(out, "V%.1fZ\"/>\n", h);
		fmt_bytes(pk, sizeof(pk), m->peak);
		fmt_ns(when, sizeof(when), (double)(m->peak_ts - t0));
		px = LABEL_W + (double)(m->peak_ts - t0) / span * NB;
		px = px < LABEL_W ? LABEL_W : px > LABEL_W + NB ? LABEL_W + NB : px;
		py = h - (m->peak - lo) / (top - lo) * h;
		fprintf(out, "<g><title>peak %s at +%s</title><circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>"
			"<text class=\"peak\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">peak %s at +%s</text></g>\n",
			pk, when, px, py, px + (px > LABEL_W + NB * 0.7 ? -6 : 6), py - 7,
			px > LABEL_W + NB * 0.7 ? "end" : "start", pk, when);
		fputs("</svg></div>\n", out);
	}
	fputs("</section>\n", out);
done:
	for (i = 0; i < ndevs; i++)
		free(devs[i]);
	free(devs);
	return ret;
}

/* The device_metrics columns drawn, each its own chart with a line per device. */
static const struct metric {
	const char *col, *title, *unit;
	double scale;		/* value shown = column / scale */
} metrics[] = {
	{ "gpu_util", "GPU utilisation", "%", 1 },
	{ "mem_util", "Memory utilisation", "%", 1 },
	{ "power_mw", "Power", "W", 1000 },
	{ "temp_c", "Temperature", "\xC2\xB0" "C", 1 },
};
#define NMETRICS ((int)(sizeof(metrics) / sizeof(metrics[0])))

struct met_dev {
	int64_t device;
	double sum[NMETRICS][NB];	/* sums of samples per bucket */
	int cnt[NMETRICS][NB];
};

/* Chart 4: device utilisation, power and temperature over time, the average within each bucket. */
static int chart_metrics(FILE *out, const struct report_doc *d, int64_t t0, int64_t t1)
{
	struct met_dev **devs = NULL, *cur = NULL;
	size_t ndevs = 0, alloc = 0, i;
	double span = (double)(t1 - t0);
	sqlite3_stmt *st;
	int rc, ret = 0, m, b, any_section = 0;
	if (span <= 0)
		return 0;
	if (!(st = rows_open(d->db, "timeline_metrics")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(st, 0);
		if (!cur || cur->device != dev) {
			ALLOC_GROW(devs, ndevs + 1, alloc);
			cur = devs[ndevs++] = xcalloc(1, sizeof(struct met_dev));
			cur->device = dev;
		}
		b = (int)((double)(sqlite3_column_int64(st, 1) - t0) / span * NB);
		b = b < 0 ? 0 : b >= NB ? NB - 1 : b;
		for (m = 0; m < NMETRICS; m++)
			if (sqlite3_column_type(st, 2 + m) != SQLITE_NULL) {
				cur->sum[m][b] += sqlite3_column_double(st, 2 + m) / metrics[m].scale;
				cur->cnt[m][b]++;
			}
	}
	ret = rows_end(st, rc);
	if (ret || !ndevs)
		goto done;
	for (m = 0; m < NMETRICS; m++) {
		const double h = 120;
		double top = 0;
		int have = 0;
		char lab[64];
		for (i = 0; i < ndevs; i++)
			for (b = 0; b < NB; b++)
				if (devs[i]->cnt[m][b]) {
					double v = devs[i]->sum[m][b] / devs[i]->cnt[m][b];
					have = 1;
					top = v > top ? v : top;
				}
		if (!have)
			continue;
		if (!any_section)
			fputs("<section id=\"c-metrics\"><h2>Device metrics</h2>\n", out);
		any_section = 1;
		if (!strcmp(metrics[m].unit, "%"))
			top = 100;
		else
			top = top > 0 ? top * 1.1 : 1;
		fprintf(out, "<h3>%s (%s)</h3>\n<p class=\"sub legend\">", metrics[m].title, metrics[m].unit);
		for (i = 0; i < ndevs; i++)
			fprintf(out, "<span><i class=\"c%zu\"></i>device %lld</span>", i % NSERIES, (long long)devs[i]->device);
		fputs("</p>\n", out);
		html_chart_open(out, "chart", LABEL_W + NB + 10, h + 22, metrics[m].title);
		html_time_axis(out, h, 14, span);
		snprintf(lab, sizeof(lab), "%.0f %s", top, metrics[m].unit);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"0\"/>"
			"<text x=\"%d\" y=\"10\" text-anchor=\"end\" class=\"muted\">%s</text>"
			"<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" class=\"muted\">0</text>\n",
			LABEL_W, LABEL_W + NB, LABEL_W - 6, lab, LABEL_W - 6, h);
		for (i = 0; i < ndevs; i++) {
			int n = 0;
			fprintf(out, "<polyline class=\"ln s%zu\" points=\"", i % NSERIES);
			for (b = 0; b < NB; b++)
				if (devs[i]->cnt[m][b]) {
					double v = devs[i]->sum[m][b] / devs[i]->cnt[m][b];
					fprintf(out, "%s%.1f,%.1f", n++ ? " " : "", LABEL_W + b + 0.5, h - v / top * h);
				}
			fprintf(out, "\"><title>device %lld</title></polyline>\n", (long long)devs[i]->device);
		}
		fputs("</svg></div>\n", out);
	}
	if (any_section)
		fputs("</section>\n", out);
done:
	for (i = 0; i < ndevs; i++)
		free(devs[i]);
	free(devs);
	return ret;
}

/* The session's time charts: the timeline (timeline.c), then device metrics over time. */
static int chart_session(FILE *out, const struct report_doc *d, const struct table *t, int64_t t0, int64_t t1)
{
	(void)t;
	return html_timeline(out, d, t0, t1) || chart_metrics(out, d, t0, t1) ? -1 : 0;
}

/*
 * The charts, chosen by the columns of the tables (their keys and kinds), never by a table's name: each is
 * drawn once, after the first table of the report that has all its columns (when that table is shown),
 * from that table's rows or from analyze/timeline.sql's views over the session's time [t0, t1].
 */
static const struct chart {
	struct chart_col {
		const char *key;
		enum col_type type;
	} cols[6];		/* ended by a NULL key */
	int (*draw)(FILE *out, const struct report_doc *d, const struct table *t, int64_t t0, int64_t t1);
} charts[] = {
	/* A table with the session's start and end times (the summary): the session over time. */
	{ { { "start_ns", C_TIME }, { "end_ns", C_TIME } }, chart_session },
	/* Names with a total time (the first: the kernels by total time): bars of the totals. */
	{ { { "name", C_TEXT }, { "total_ns", C_NS } }, chart_totals },
	/* Names with samples, split by percentage columns (the stall reasons per kernel): stacked shares. */
	{ { { "name", C_TEXT }, { "samples", C_INT } }, chart_shares },
	/* GPU spans split into compute, exposed communication, busy and idle time (per rank): stacked bars. */
	{ { { "span_ns", C_NS }, { "busy_ns", C_NS }, { "compute_ns", C_NS }, { "exposed_comm_ns", C_NS },
	    { "idle_ns", C_NS } }, chart_spans },
	/* A peak of bytes and when it was (device memory): live bytes over time. */
	{ { { "peak_bytes", C_BYTES }, { "peak_ns", C_TIME } }, chart_memory },
};
#define NCHARTS ((int)(sizeof(charts) / sizeof(charts[0])))

/* Whether t has every column of chart c, of its kind. */
static int chart_fits(const struct chart *c, const struct table *t)
{
	int k, col;
	for (k = 0; c->cols[k].key; k++)
		if ((col = table_find_col(t, c->cols[k].key)) < 0 || t->cols[col].type != c->cols[k].type)
			return 0;
	return 1;
}

int report_html(FILE *out, const char *path, const struct report_doc *d)
{
	const char *css = embed_get("report/report.css"), *sort_js = embed_get("report/sort.js"),
		   *timeline_js = embed_get("report/timeline.js");
	const struct rows_param params[] = { ROWS_INT(":session", d->session) };
	int64_t when[2] = { 0, 0 }, t0, t1;
	int i, c, at[NCHARTS];	/* at[c]: the table chart c follows, -1 none */
	(void)path;
	if (!css)
		warning("report/report.css is not embedded: the HTML report has no style sheet");
	if (!sort_js)
		warning("report/sort.js is not embedded: the HTML report's tables do not sort");
	if (!timeline_js)
		warning("report/timeline.js is not embedded: the HTML report's timeline does not zoom");
	if (rows_module(d->db, "timeline", params, 1) || rows_each(d->db, "timeline_span", span_row, when))
		return -1;
	t0 = when[0];
	t1 = when[1];
	for (c = 0; c < NCHARTS; c++)
		for (at[c] = -1, i = 0; at[c] < 0 && i < d->ts->n; i++)
			if (chart_fits(&charts[c], d->ts->v[i]))
				at[c] = i;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"gpuprof " GPUPROF_VERSION "\">\n<title>gpuprof report</title>\n<style>\n",
	      out);
	if (css)
		fputs(css, out);
	fputs("</style>\n</head>\n<body>\n<header><h1>gpuprof report</h1>\n", out);
	fprintf(out, "<p class=\"sub\">Session %lld", (long long)d->session);
	if (t1 > t0) {
		char span[64];
		fmt_ns(span, sizeof(span), (double)(t1 - t0));
		fprintf(out, ", %s", span);
	}
	fputs(". Times in charts are since the session&#39;s start.</p>\n<nav>", out);
	for (i = 0; i < d->ts->n; i++) {
		if (!report_shown(d->ts->v[i]))
			continue;
		fputs("<a href=\"#t-", out);
		html_esc(out, d->ts->v[i]->name);
		fputs("\">", out);
		html_esc(out, d->ts->v[i]->title);
		fputs("</a> ", out);
	}
	fputs("</nav></header>\n<main>\n", out);
	for (i = 0; i < d->ts->n; i++) {
		if (!report_shown(d->ts->v[i]))
			continue;
		write_table(out, d->ts->v[i]);
		for (c = 0; c < NCHARTS; c++)
			if (at[c] == i && charts[c].draw(out, d, d->ts->v[i], t0, t1))
				return -1;
	}
	fputs("</main>\n<footer>gpuprof " GPUPROF_VERSION ": a self-contained report; "
	      "click a column heading to sort.</footer>\n<script>\n", out);
	if (sort_js)
		fputs(sort_js, out);
	if (timeline_js)
		fputs(timeline_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
	return ferror(out) ? -1 : 0;
}
