#include "table.h"
#include "json.h"
#include "options.h"
#include "utf8.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A title for people (it may hold data: a compared session's program, a stall reason): as table_visible shows it. */
static char *title_dup(const char *s)
{
	struct buf b;
	char *out;
	buf_init(&b);
	utf8_visible(&b, s, strlen(s));
	out = xstrndup(b.s, b.len);
	buf_release(&b);
	return out;
}

struct table *table_new(const char *name, const char *title)
{
	struct table *t = xcalloc(1, sizeof(*t));
	t->name = xstrdup(name);
	t->title = title_dup(title);
	return t;
}

void table_free(struct table *t)
{
	size_t i;
	int c;
	if (!t)
		return;
	for (i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i].s);
	for (c = 0; c < t->ncols; c++) {
		free(t->cols[c].key);
		free(t->cols[c].title);
	}
	free(t->cols);
	free(t->cells);
	free(t->name);
	free(t->title);
	free(t->note);
	free(t->footer);
	free(t);
}

int table_col(struct table *t, const char *key, const char *title, enum col_type type)
{
	t->cols = xrealloc(t->cols, (size_t)(t->ncols + 1) * sizeof(*t->cols));
	t->cols[t->ncols].key = utf8_dup(key, NULL);
	t->cols[t->ncols].title = title_dup(title);
	t->cols[t->ncols].type = type;
	return t->ncols++;
}

void table_cols(struct table *t, const struct colspec *c, int n)
{
	int i;
	for (i = 0; i < n; i++)
		table_col(t, c[i].key, c[i].title, c[i].type);
}

void table_drop_col(struct table *t, int col)
{
	size_t r, n = (size_t)t->ncols, w = 0, i;
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < n; i++) {
			if ((int)i == col)
				free(t->cells[r * n + i].s);
			else
				t->cells[w++] = t->cells[r * n + i];
		}
	free(t->cols[col].key);
	free(t->cols[col].title);
	memmove(t->cols + col, t->cols + col + 1, (n - (size_t)col - 1) * sizeof(*t->cols));
	t->ncols--;
}

size_t table_row(struct table *t)
{
	size_t n = (size_t)t->ncols;
	size_t i;
	ALLOC_GROW(t->cells, (t->nrows + 1) * n, t->alloc);
	for (i = 0; i < n; i++) {
		memset(&t->cells[t->nrows * n + i], 0, sizeof(struct cell));
		t->cells[t->nrows * n + i].null = 1;
	}
	return t->nrows++;
}

void table_truncate(struct table *t, size_t n)
{
	size_t i;
	if (n >= t->nrows)
		return;
	for (i = n * (size_t)t->ncols; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i].s);
	t->nrows = n;
}

struct cell *table_cell(struct table *t, size_t row, int col)
{
	return &t->cells[row * (size_t)t->ncols + (size_t)col];
}

void table_set_int(struct table *t, size_t row, int col, int64_t v)
{
	struct cell *c = table_cell(t, row, col);
	c->null = 0;
	c->is_real = 0;
	c->i = v;
	c->d = (double)v;
}

void table_set_real(struct table *t, size_t row, int col, double v)
{
	struct cell *c = table_cell(t, row, col);
	c->null = !isfinite(v);
	c->is_real = 1;
	c->d = v;
	c->i = (int64_t)v;
}

void table_set_text(struct table *t, size_t row, int col, const char *s)
{
	struct cell *c = table_cell(t, row, col);
	free(c->s);
	c->s = s ? utf8_dup(s, NULL) : NULL;	/* valid UTF-8 whatever the database holds (an older ingest's) */
	c->null = !s;
}

int table_find_col(const struct table *t, const char *key)
{
	int c;
	for (c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].key, key))
			return c;
	return -1;
}

/* Each table as render_csv, render_md and render_json write it: the text options do not apply. */
static int csv_table(FILE *out, const struct table *t, const struct render_opts *o)
{
	(void)o;
	return render_csv(out, t);
}

static int md_table(FILE *out, const struct table *t, const struct render_opts *o)
{
	(void)o;
	return render_md(out, t);
}

static int json_table(FILE *out, const struct table *t, const struct render_opts *o)
{
	return render_json(out, t, o);
}

#define BOTH (FMT_ANALYZE | FMT_REPORT)
const struct format formats[] = {
	/* id, name, alias, ext, more_ext, programs, to_dir, needs_path, table_filter, events, render, sep, keyed.
	   trace writes plain JSON too: ".json" here lets --format trace -o x.json be, while json's row, first
	   with an extension as long, is what -o x.json implies. */
	{ FMT_TEXT, "text", NULL, ".txt", NULL, BOTH, 0, 0, 0, 0, render_text, "\n", 0 },
	{ FMT_CSV, "csv", NULL, ".csv", NULL, BOTH, 1, 0, 1, 0, csv_table, "\r\n", 0 },
	{ FMT_JSON, "json", NULL, ".json", NULL, BOTH, 0, 0, 0, 0, json_table, ",\n", 1 },
	{ FMT_MD, "md", "markdown", ".md", ".markdown", BOTH, 0, 0, 0, 0, md_table, "", 0 },
	{ FMT_HTML, "html", NULL, ".html", ".htm", FMT_REPORT, 0, 0, 0, 0, NULL, NULL, 0 },
	{ FMT_XLSX, "xlsx", NULL, ".xlsx", NULL, FMT_REPORT, 0, 1, 0, 0, NULL, NULL, 0 },
	{ FMT_TRACE, "trace", NULL, ".json.gz", ".trace.json .trace.json.gz .json", FMT_REPORT, 0, 0, 0, 1, NULL, NULL,
	  0 },
	{ FMT_N, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, 0 }
};

const struct format *format_find(const char *name, unsigned program)
{
	const struct format *f;
	for (f = formats; f->name; f++)
		if ((f->programs & program) && (!strcmp(f->name, name) || (f->alias && !strcmp(f->alias, name))))
			return f;
	return NULL;
}

/* Whether path ends with the n bytes of ext, ASCII case ignored, after at least one other character. */
static int ext_ends(const char *path, const char *ext, size_t n)
{
	size_t len = strlen(path);
	return n && len > n && !strncasecmp(path + len - n, ext, n);
}

size_t format_ext_at(const struct format *f, const char *path)
{
	const char *p = f->more_ext;
	size_t best = ext_ends(path, f->ext, strlen(f->ext)) ? strlen(f->ext) : 0;
	while (p && *p) {
		size_t n = strcspn(p, " ");
		if (n > best && ext_ends(path, p, n))
			best = n;
		p += n + (p[n] == ' ');
	}
	return best;
}

const struct format *format_for_path(const char *path, unsigned program)
{
	const struct format *f, *best = NULL;
	size_t n, longest = 0;
	for (f = formats; f->name; f++)
		if ((f->programs & program) && (n = format_ext_at(f, path)) > longest) {
			longest = n;
			best = f;
		}
	return best;
}

void format_names(struct buf *b, unsigned program, int (*keep)(const struct format *f), const char *last_sep,
		  const char *first_note)
{
	const struct format *f, *g;
	int n = 0;
	for (f = formats; f->name; f++) {
		if (!(f->programs & program) || (keep && !keep(f)))
			continue;
		for (g = f + 1; g->name && (!(g->programs & program) || (keep && !keep(g))); g++)
			;
		buf_addf(b, "%s%s%s", n ? (g->name ? ", " : last_sep) : "", f->name,
			 !n && first_note ? first_note : "");
		n++;
	}
}

int format_option(const struct opt *opt, const char *arg)
{
	const struct format *f = format_find(arg, (unsigned)opt->defval);
	struct buf names;
	if (f) {
		*(const struct format **)opt->value = f;
		return 0;
	}
	buf_init(&names);
	format_names(&names, (unsigned)opt->defval, NULL, ", ", NULL);
	error("unknown format '%s' (%s)", arg, names.s);
	buf_release(&names);
	return -1;
}

const char *format_option_help(unsigned program)
{
	static struct buf help[2];	/* FMT_ANALYZE's, FMT_REPORT's */
	struct buf *b = &help[program == FMT_REPORT];
	if (!b->s) {
		buf_init(b);
		format_names(b, program, NULL, " or ", " (default)");
	}
	return b->s;
}

void fmt_ns(char *out, size_t n, double ns)
{
	double a = fabs(ns);
	if (a < 1e3)
		snprintf(out, n, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(out, n, "%.3f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(out, n, "%.3f ms", ns / 1e6);
	else
		snprintf(out, n, "%.3f s", ns / 1e9);
}

void fmt_bytes(char *out, size_t n, double bytes)
{
	static const char *units[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int u = 0;
	while (fabs(bytes) >= 1000 && u < 5) {
		bytes /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(out, n, "%.0f B", bytes);
	else
		snprintf(out, n, "%.2f %s", bytes, units[u]);
}

void table_human(char *out, size_t n, const struct column *col, const struct cell *c)
{
	if (c->null) {
		snprintf(out, n, "-");
		return;
	}
	switch (col->type) {
	case C_NS:
		fmt_ns(out, n, c->d);
		break;
	case C_TIME: {
		time_t secs = (time_t)(c->i / 1000000000);
		int64_t frac = c->i % 1000000000;
		struct tm tm;
		char date[32];
		if (frac < 0) {
			frac += 1000000000;
			secs--;
		}
		gmtime_r(&secs, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(out, n, "%s.%09lld UTC", date, (long long)frac);
		break;
	}
	case C_BYTES:
		fmt_bytes(out, n, c->d);
		break;
	case C_PCT:
		snprintf(out, n, "%.1f", c->d);
		break;
	case C_REAL:
		snprintf(out, n, "%.3f", c->d);
		break;
	case C_INT:
		if (c->is_real)
			snprintf(out, n, "%.3f", c->d);
		else
			snprintf(out, n, "%lld", (long long)c->i);
		break;
	case C_TEXT:
		table_visible(out, n, c->s ? c->s : "");
		break;
	}
}

void table_visible(char *out, size_t n, const char *s)
{
	size_t len = strlen(s);
	struct buf b;
	if (!utf8_needs_escape(s, len)) {
		snprintf(out, n, "%s", s);
		return;
	}
	buf_init(&b);
	utf8_visible(&b, s, len);
	snprintf(out, n, "%s", b.s);
	buf_release(&b);
}

/* Print s as table_visible shows it. */
static void put_visible(FILE *out, const char *s)
{
	struct buf b;
	buf_init(&b);
	utf8_visible(&b, s, strlen(s));
	fputs(b.s, out);
	buf_release(&b);
}

void table_raw(struct buf *b, const struct cell *c)
{
	if (c->is_real) {
		double r = round(c->d);
		if (r == c->d && fabs(c->d) < 9e15)
			buf_addi64(b, (int64_t)r);
		else
			buf_addf(b, "%.17g", c->d);
	} else {
		buf_addi64(b, c->i);
	}
}

/* The byte after n more characters of s[at..len) (UTF-8: continuation bytes are not characters). */
static size_t chars_fwd(const char *s, size_t at, size_t len, size_t n)
{
	while (at < len && n) {
		at++;
		while (at < len && ((unsigned char)s[at] & 0xC0) == 0x80)
			at++;
		n--;
	}
	return at;
}

/* The byte where the last n characters of s[0..at) begin. */
static size_t chars_back(const char *s, size_t at, size_t n)
{
	while (at > 0 && n) {
		at--;
		while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80)
			at--;
		n--;
	}
	return at;
}

/* What of a name a cut shows: without the return type "void " and the parameter list of a C++ kernel name. */
static void cut_view(const char *s, size_t *off, size_t *len)
{
	size_t p;
	*off = 0;
	*len = strlen(s);
	if (!strncmp(s, "void ", 5)) {
		*off = 5;
		*len -= 5;
	}
	p = cxx_params_at(s + *off, *len);
	if (p > 0 && p < *len)
		*len = p;
}

/*
 * Copy s shortened to at most `max` display columns (max >= 8), losing the least: first the return type
 * and the parameter list (cut_view), then the middle. keep is the byte of s (in the view) that must stay
 * in sight, where the name first differs from another it would look the same as (in the whole name
 * when `whole`: names that differ only in what the view leaves out), or SIZE_MAX: then
 * two thirds from the head and one third from the tail ("head...tail"); else the head up to a few
 * characters past keep and the tail, or the head, a window around keep and the tail ("h...window...t").
 */
static void cut_name(struct buf *out, const char *s, int max, size_t keep, int whole)
{
	size_t off, len, cols, head, tail, w0, w1;
	buf_reset(out);
	if (keep == SIZE_MAX && (int)utf8_chars(s) <= max) {
		buf_addstr(out, s);
		return;
	}
	cut_view(s, &off, &len);
	if (whole) {
		off = 0;
		len = strlen(s);
	}
	s += off;
	cols = (size_t)max - 3;
	if (keep == SIZE_MAX) {
		buf_add(out, s, len);
		if ((int)utf8_chars(out->s) <= max)
			return;
		buf_reset(out);
		head = chars_fwd(s, 0, len, cols * 2 / 3);
		tail = chars_back(s, len, cols - cols * 2 / 3);
	} else {
		size_t before = keep > len ? len : keep, ahead = 6, quarter = ((size_t)max - 6) / 4, i;
		for (i = 0, w0 = 0; i < before; i++)	/* the characters before keep */
			w0 += ((unsigned char)s[i] & 0xC0) != 0x80;
		if (w0 + ahead + 8 <= cols) {
			head = chars_fwd(s, 0, len, w0 + ahead);
			tail = chars_back(s, len, cols - w0 - ahead);
		} else {
			size_t win = (size_t)max - 6 - 2 * quarter;
			head = chars_fwd(s, 0, len, quarter);
			tail = chars_back(s, len, quarter);
			w0 = chars_back(s, before, win / 2);
			if (w0 < head)
				w0 = head;
			w1 = chars_fwd(s, w0, len, win);
			if (w1 > tail) {
				w1 = tail;
				w0 = chars_back(s, tail, win);
			}
			if (w0 <= head || w1 >= tail) {	/* the window meets the head or the tail: one cut */
				buf_add(out, s, w0 <= head ? w1 : head);
				buf_addstr(out, "...");
				buf_add(out, s + (w0 <= head ? tail : w0), len - (w0 <= head ? tail : w0));
				return;
			}
			buf_add(out, s, head);
			buf_addstr(out, "...");
			buf_add(out, s + w0, w1 - w0);
			buf_addstr(out, "...");
			buf_add(out, s + tail, len - tail);
			return;
		}
	}
	if (tail < head)
		tail = head;
	buf_add(out, s, head);
	buf_addstr(out, "...");
	buf_add(out, s + tail, len - tail);
}

struct cut {
	const char *name;	/* the whole name */
	char *shown;		/* what the row shows */
};

static int cut_cmp(const void *a, const void *b)
{
	const struct cut *x = *(const struct cut *const *)a, *y = *(const struct cut *const *)b;
	int c = strcmp(x->shown, y->shown);
	return c ? c : strcmp(x->name, y->name);
}

/*
 * The byte where the views of a and b first differ; where the views are the same, where a and b do,
 * with *whole set.
 */
static size_t view_diff(const char *a, const char *b, int *whole)
{
	size_t ao, al, bo, bl, i = 0;
	cut_view(a, &ao, &al);
	cut_view(b, &bo, &bl);
	while (i < al && i < bl && a[ao + i] == b[bo + i])
		i++;
	if (i < al || i < bl)
		return i;
	*whole = 1;
	for (i = 0; a[i] && a[i] == b[i]; i++)
		;
	return i;
}

/*
 * Cut each of n names to `max` columns so that two different names never look the same: a cut shared
 * by different names is made again around where each first differs from the others, and a name that
 * still looks like another is shown whole. cuts[i].shown is malloc'ed.
 */
static void cut_column(struct cut *cuts, size_t n, int max)
{
	struct cut **by = xcalloc(n ? n : 1, sizeof(*by));
	struct buf b;
	size_t i, j, k;
	int pass;
	buf_init(&b);
	for (i = 0; i < n; i++) {
		cut_name(&b, cuts[i].name, max, SIZE_MAX, 0);
		cuts[i].shown = xstrdup(b.s);
		by[i] = &cuts[i];
	}
	for (pass = 0; pass < 2; pass++) {
		xqsort(by, n, sizeof(*by), cut_cmp);
		for (i = 0; i < n; i = j) {
			size_t *keep;
			int whole = 0;	/* some differ only in what the view leaves out: cut whole names */
			for (j = i + 1; j < n && !strcmp(by[i]->shown, by[j]->shown); j++)
				;
			if (j - i < 2 || !strcmp(by[i]->name, by[j - 1]->name))
				continue;	/* one name, maybe in several rows */
			keep = xcalloc(j - i, sizeof(*keep));
			for (k = i; k < j; k++) {
				size_t m;
				for (m = i; m < j; m++)
					if (strcmp(by[k]->name, by[m]->name))
						view_diff(by[k]->name, by[m]->name, &whole);
			}
			for (k = i; k < j; k++) {
				size_t m, d;
				int w = 0;
				for (m = i; m < j; m++) {
					if (!strcmp(by[k]->name, by[m]->name))
						continue;
					d = view_diff(by[k]->name, by[m]->name, &w);
					if (whole && !w) {	/* where the whole names differ */
						for (d = 0; by[k]->name[d] && by[k]->name[d] == by[m]->name[d]; d++)
							;
					}
					w = 0;
					if (d > keep[k - i])
						keep[k - i] = d;
				}
			}
			for (k = i; k < j; k++) {
				if (pass == 0)
					cut_name(&b, by[k]->name, max, keep[k - i], whole);
				free(by[k]->shown);
				by[k]->shown = xstrdup(pass == 0 ? b.s : by[k]->name);
			}
			free(keep);
		}
	}
	buf_release(&b);
	free(by);
}

char **table_cut_names(const char *const *names, size_t n, int max)
{
	struct cut *cuts = xcalloc(n ? n : 1, sizeof(*cuts));
	char **shown = xcalloc(n ? n : 1, sizeof(*shown));
	size_t i;
	for (i = 0; i < n; i++)
		cuts[i].name = names[i];
	cut_column(cuts, n, max < 8 ? 8 : max);
	for (i = 0; i < n; i++)
		shown[i] = cuts[i].shown;
	free(cuts);
	return shown;
}

void table_cut_names_free(char **shown, size_t n)
{
	size_t i;
	for (i = 0; shown && i < n; i++)
		free(shown[i]);
	free(shown);
}

int render_width(void)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	if (cols && atoi(cols) > 0)
		return atoi(cols);
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

int render_text(FILE *out, const struct table *t, const struct render_opts *o)
{
	int width = o && o->width > 0 && !o->wide ? o->width : INT32_MAX / 2;
	int *w = xcalloc((size_t)t->ncols, sizeof(int));
	char cellbuf[4096];
	struct cut *cuts = NULL;	/* the last column's names and what each row shows of its name */
	size_t r;
	int c, used = 0;

	put_visible(out, t->title);
	fputc('\n', out);
	if (t->note) {
		put_visible(out, t->note);
		fputc('\n', out);
	}
	if (t->vertical) {
		int kw = 0;
		for (c = 0; c < t->ncols; c++)
			if ((int)utf8_chars(t->cols[c].title) > kw)
				kw = (int)utf8_chars(t->cols[c].title);
		for (r = 0; r < t->nrows; r++) {
			for (c = 0; c < t->ncols; c++) {
				table_human(cellbuf, sizeof(cellbuf), &t->cols[c], &t->cells[r * (size_t)t->ncols + c]);
				fprintf(out, "  %-*s  %s\n", kw, t->cols[c].title, cellbuf);
			}
			if (r + 1 < t->nrows)
				fputc('\n', out);
		}
		free(w);
		return ferror(out) ? -1 : 0;
	}
	for (c = 0; c < t->ncols; c++) {
		w[c] = (int)utf8_chars(t->cols[c].title);
		for (r = 0; r < t->nrows; r++) {
			int cw;
			table_human(cellbuf, sizeof(cellbuf), &t->cols[c], &t->cells[r * (size_t)t->ncols + c]);
			cw = (int)utf8_chars(cellbuf);
			if (cw > w[c])
				w[c] = cw;
		}
	}
	/* The last text column takes what is left of the terminal width. */
	for (c = 0; c < t->ncols - 1; c++)
		used += w[c] + 2;
	if (t->ncols && t->cols[t->ncols - 1].type == C_TEXT && !(o && o->wide) && used + w[t->ncols - 1] > width)
		w[t->ncols - 1] = width - used > 20 ? width - used : 20;
	for (c = 0; c < t->ncols; c++) {
		int last = c == t->ncols - 1;
		if (t->cols[c].type == C_TEXT)
			if (last)
				fputs(t->cols[c].title, out);
			else
				fprintf(out, "%-*s  ", w[c], t->cols[c].title);
		else
			fprintf(out, "%*s%s", w[c], t->cols[c].title, last ? "" : "  ");
	}
	fputc('\n', out);
	for (c = 0; c < t->ncols; c++) {
		int i, n = c == t->ncols - 1 && t->cols[c].type == C_TEXT ? (int)utf8_chars(t->cols[c].title) : w[c];
		for (i = 0; i < n; i++)
			fputc('-', out);
		fputs(c == t->ncols - 1 ? "\n" : "  ", out);
	}
	/* Only the last text column is cut to the width left (the others are as wide as their longest cell). */
	if (t->ncols && t->cols[t->ncols - 1].type == C_TEXT && !(o && o->wide) && w[t->ncols - 1] >= 8) {
		c = t->ncols - 1;
		cuts = xcalloc(t->nrows ? t->nrows : 1, sizeof(*cuts));
		for (r = 0; r < t->nrows; r++) {
			table_human(cellbuf, sizeof(cellbuf), &t->cols[c], &t->cells[r * (size_t)t->ncols + c]);
			cuts[r].name = xstrdup(cellbuf);
		}
		cut_column(cuts, t->nrows, w[c]);
	}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			int last = c == t->ncols - 1;
			table_human(cellbuf, sizeof(cellbuf), &t->cols[c], &t->cells[r * (size_t)t->ncols + c]);
			if (t->cols[c].type == C_TEXT) {
				const char *cut = last && cuts ? cuts[r].shown : cellbuf;
				if (last)
					fputs(cut, out);
				else
					fprintf(out, "%s%*s  ", cut, w[c] - (int)utf8_chars(cut), "");
			} else {
				fprintf(out, "%*s%s", w[c], cellbuf, last ? "" : "  ");
			}
		}
		fputc('\n', out);
	}
	if (t->footer) {
		put_visible(out, t->footer);
		fputc('\n', out);
	}
	for (r = 0; cuts && r < t->nrows; r++) {
		free((char *)cuts[r].name);
		free(cuts[r].shown);
	}
	free(cuts);
	free(w);
	return ferror(out) ? -1 : 0;
}

/* RFC 4180 quoting; a text cell a spreadsheet would run as a formula gets a leading apostrophe. */
static void csv_text(struct buf *b, const char *s)
{
	buf_addch(b, '"');
	if (strchr("=+-@\t\r", s[0]) && s[0])
		buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '"')
			buf_addch(b, '"');
		buf_addch(b, *s);
	}
	buf_addch(b, '"');
}

int render_csv(FILE *out, const struct table *t)
{
	struct buf b;
	size_t r;
	int c;
	buf_init(&b);
	for (c = 0; c < t->ncols; c++) {
		if (c)
			buf_addch(&b, ',');
		csv_text(&b, t->cols[c].key);
	}
	buf_addstr(&b, "\r\n");
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const struct cell *cl = &t->cells[r * (size_t)t->ncols + c];
			if (c)
				buf_addch(&b, ',');
			if (cl->null)
				continue;
			if (t->cols[c].type == C_TEXT)
				csv_text(&b, cl->s);
			else
				table_raw(&b, cl);
		}
		buf_addstr(&b, "\r\n");
	}
	fwrite(b.s, 1, b.len, out);
	buf_release(&b);
	return ferror(out) ? -1 : 0;
}

int md_entity_at(const char *s)
{
	size_t i = 1;
	if (s[0] != '&')
		return 0;
	if (s[i] == '#')
		i++;
	if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
		return 0;
	while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9'))
		i++;
	return s[i] == ';';
}

void md_text(FILE *out, const char *s)
{
	struct buf b, line;
	buf_init(&b);
	buf_init(&line);
	for (; *s; s++)	/* line breaks as spaces, then other control characters as \x1b */
		buf_addch(&line, *s == '\n' || *s == '\r' ? ' ' : *s);
	utf8_visible(&b, line.s, line.len);
	buf_release(&line);
	for (s = b.s; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_' || *s == '<' || *s == '>' ||
		    *s == '[' || *s == ']' || md_entity_at(s))
			fputc('\\', out);
		fputc(*s, out);
	}
	buf_release(&b);
}

void table_cut_middle(char *out, size_t n, const char *s, size_t max)
{
	size_t len = strlen(s), chars = 0, head, tail, i, a, b;
	for (i = 0; i < len; i++)
		chars += ((unsigned char)s[i] & 0xC0) != 0x80;
	if (chars <= max || max < 8) {
		snprintf(out, n, "%s", s);
		return;
	}
	head = (max - 3) * 2 / 3;	/* the start says what it is; the end tells instances apart */
	tail = max - 3 - head;
	for (a = 0, i = 0; a < len; a++)	/* a: the byte after the head's last character */
		if (((unsigned char)s[a] & 0xC0) != 0x80 && i++ == head)
			break;
	for (b = len, i = 0; b > 0 && i < tail; b--)	/* b: the tail's first byte */
		i += ((unsigned char)s[b - 1] & 0xC0) != 0x80;
	snprintf(out, n, "%.*s...%s", (int)a, s, s + b);
}

int render_md_rows(FILE *out, const struct table *t)
{
	char cellbuf[4096], cut[MD_CELL_MAX * 4 + 8];
	size_t r;
	int c;
	if (t->note) {
		md_text(out, t->note);
		fputs("\n\n", out);
	}
	if (t->vertical) {
		fprintf(out, "| | |\n|---|---|\n");
		for (r = 0; r < t->nrows; r++)
			for (c = 0; c < t->ncols; c++) {
				table_human(cellbuf, sizeof(cellbuf), &t->cols[c], &t->cells[r * (size_t)t->ncols + c]);
				table_cut_middle(cut, sizeof(cut), cellbuf, MD_CELL_MAX);
				fputs("| ", out);
				md_text(out, t->cols[c].title);
				fputs(" | ", out);
				md_text(out, cut);
				fputs(" |\n", out);
			}
		fputc('\n', out);
		return ferror(out) ? -1 : 0;
	}
	fputc('|', out);
	for (c = 0; c < t->ncols; c++) {
		fputc(' ', out);
		md_text(out, t->cols[c].title);
		fputs(" |", out);
	}
	fputs("\n|", out);
	for (c = 0; c < t->ncols; c++)
		fputs(t->cols[c].type == C_TEXT ? "---|" : "---:|", out);
	fputc('\n', out);
	for (r = 0; r < t->nrows; r++) {
		fputc('|', out);
		for (c = 0; c < t->ncols; c++) {
			table_human(cellbuf, sizeof(cellbuf), &t->cols[c], &t->cells[r * (size_t)t->ncols + c]);
			table_cut_middle(cut, sizeof(cut), cellbuf, MD_CELL_MAX);
			fputc(' ', out);
			md_text(out, cut);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	if (t->footer) {
		md_text(out, t->footer);
		fputs("\n\n", out);
	}
	return ferror(out) ? -1 : 0;
}

void table_offset_key(char *out, size_t n, const char *key)
{
	size_t len = strlen(key);
	if (len > 3 && !strcmp(key + len - 3, "_ns"))
		len -= 3;
	snprintf(out, n, "%.*s_offset_ns", (int)len, key);
}

int render_md(FILE *out, const struct table *t)
{
	fprintf(out, "### %s\n\n", t->title);
	return render_md_rows(out, t);
}

int render_json(FILE *out, const struct table *t, const struct render_opts *o)
{
	struct buf b;
	size_t r;
	int c;
	buf_init(&b);
	buf_addch(&b, '[');
	for (r = 0; r < t->nrows; r++) {
		buf_addstr(&b, r ? ",\n  {" : "\n  {");
		for (c = 0; c < t->ncols; c++) {
			const struct cell *cl = &t->cells[r * (size_t)t->ncols + c];
			if (c)
				buf_addstr(&b, ", ");
			json_quote(&b, t->cols[c].key, strlen(t->cols[c].key));
			buf_addstr(&b, ": ");
			if (cl->null)
				buf_addstr(&b, "null");
			else if (t->cols[c].type == C_TEXT)
				json_quote(&b, cl->s, strlen(cl->s));
			else
				table_raw(&b, cl);
			if (t->cols[c].type == C_TIME && o && o->has_origin) {
				char key[256];
				table_offset_key(key, sizeof(key), t->cols[c].key);
				buf_addstr(&b, ", ");
				json_quote(&b, key, strlen(key));
				buf_addstr(&b, ": ");
				if (cl->null)
					buf_addstr(&b, "null");
				else
					buf_addi64(&b, (cl->is_real ? (int64_t)cl->d : cl->i) - o->origin);
			}
		}
		buf_addch(&b, '}');
	}
	buf_addstr(&b, t->nrows ? "\n]" : "]");
	fwrite(b.s, 1, b.len, out);
	buf_release(&b);
	return ferror(out) ? -1 : 0;
}
