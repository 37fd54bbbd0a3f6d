/*
 * html: what html.c shares with the charts kept in files of their own (timeline.c). Everything writes to
 * `out` and owns nothing; strings are read while the call lasts.
 */
#ifndef GPUPROF_REPORT_HTML_H
#define GPUPROF_REPORT_HTML_H

#include "report.h"

#define NB 1000			/* SVG units across every time chart's plot */
#define LABEL_W 150		/* room for row labels left of the plot */
#define SHORT_NAME 64		/* a chart label: 60 characters (html.c: table_cut_names); timeline titles: bytes */
#define HTML_NAME_MAX 80	/* characters of a name shown in a table cell; the whole in its title and <details> */

/*
 * Write s with &, <, >, " and ' escaped, so it is text in element content and in quoted attributes; a
 * control character (not allowed in HTML text) as the visible "\x1b", an invalid UTF-8 byte as "\xff"
 * (utf8_visible).
 */
void html_esc(FILE *out, const char *s);
/*
 * A kernel name as a chart label in out[n] (n at least 8): names over n - 4 bytes cut at n - 7 on a
 * character boundary, "..." added (SHORT_NAME: over 60 bytes, cut at 57).
 */
void html_short_name(char *out, size_t n, const char *name);
/*
 * Open a chart: <div class="scroll"><svg class=cls viewBox="0 0 w h" ...>, drawn at least w pixels wide so
 * its labels never shrink below their size (report.css, 12 px and more): a narrow window scrolls it. The
 * caller closes it with "</svg></div>".
 */
void html_chart_open(FILE *out, const char *cls, int w, double h, const char *label);
/* A time axis under a plot of height y: five ticks labelled with the time since the session's start. */
void html_time_axis(FILE *out, double y, double h, double span);

/*
 * The timeline section (timeline.c): NVTX rows per host thread, lanes per GPU stream, zoomable by the
 * embedded report/timeline.js, from analyze/timeline.sql's views (made by report_html for the session).
 * Session time [t0, t1]. 0, or -1 with a message.
 */
int html_timeline(FILE *out, const struct report_doc *d, int64_t t0, int64_t t1);

#endif
