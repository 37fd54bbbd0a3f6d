#include "wire.h"
#include "json.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_ROWS 4096
#define LINE_RESERVE 8192	/* line buffer bytes reserved at open: drops, error and end lines always fit */
#define STR_(x) #x
#define STR(x) STR_(x)
#define VKEY "\"v\":" STR(WIRE_VERSION)	/* every line's version key */

struct pending {
	struct value *rows;	/* BATCH_ROWS * nfields */
	size_t n;
	int64_t seq, total;
};

struct wire {
	int fd;
	int64_t origin;
	struct pending p[R_COUNT];
	/* Strings: value -> id, and those not yet declared in the file. */
	char **values;
	size_t nvalues, avalues, declared;
	struct strslot { const char *s; int64_t id; } *slots;
	size_t nslots;
	struct buf line;	/* soft: a line that finds no memory is not written */
	int64_t lost;		/* records of batch lines that could not be written */
	int64_t nomem[R_COUNT];	/* records dropped for lack of memory, not yet in a drops line */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * Write the line buffer with one write() (retrying short writes of a single line). 0, -1 on a write
 * error, NOMEM when the line could not be built (out of memory: nothing is written).
 */
#define NOMEM (-2)
static int put_line(struct wire *w)
{
	size_t off = 0;
	buf_addch(&w->line, '\n');
	if (w->line.failed) {
		buf_reset(&w->line);
		return NOMEM;
	}
	while (off < w->line.len) {
		ssize_t n = write(w->fd, w->line.s + off, w->line.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			buf_reset(&w->line);
			return -1;
		}
		off += (size_t)n;
	}
	buf_reset(&w->line);
	return 0;
}

static void add_key(struct buf *b, const char *key)
{
	buf_addch(b, '"');
	buf_addstr(b, key);
	buf_addstr(b, "\":");
}

struct wire *wire_open(const char *path, const struct wire_header *h)
{
	struct wire *w = calloc(1, sizeof(*w));
	char origin[24];
	int fd, rc, e;
	if (!w)
		return NULL;
	buf_init(&w->line);
	if (buf_reserve(&w->line, LINE_RESERVE) ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		e = errno;	/* (EEXIST tells the caller to try another name) */
		goto fail;
	}
	if (fd <= 2) {
		/*
		 * The program closed stdin, stdout or stderr: were the file to stay on that number, the program's
		 * next printf (or the descriptor it opens for stdout) would write into it.
		 */
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		e = errno;
		close(fd);
		if (high < 0)
			goto remove_file;
		fd = high;
	}
	w->fd = fd;
	w->origin = h->origin_ns;
	buf_addstr(&w->line, "{\"type\":\"header\"," VKEY ",\"session\":");
	json_quote(&w->line, h->session, strlen(h->session));
	buf_addstr(&w->line, ",\"collector\":");
	json_quote(&w->line, h->collector, strlen(h->collector));
	if (h->program) {
		buf_addstr(&w->line, ",\"program\":");
		json_quote(&w->line, h->program, strlen(h->program));
	}
	buf_addstr(&w->line, ",\"args\":[");
	if (h->args) {
		const char *const *a;
		for (a = h->args; *a; a++) {
			if (a != h->args)
				buf_addch(&w->line, ',');
			json_quote(&w->line, *a, strlen(*a));
		}
	}
	buf_addstr(&w->line, "],\"pid\":");
	buf_addi64(&w->line, h->pid);
	buf_addstr(&w->line, ",\"ppid\":");
	buf_addi64(&w->line, h->ppid);
	if (h->hostname) {
		buf_addstr(&w->line, ",\"hostname\":");
		json_quote(&w->line, h->hostname, strlen(h->hostname));
	}
	buf_addstr(&w->line, ",\"engine\":");
	json_quote(&w->line, h->engine, strlen(h->engine));
	buf_addstr(&w->line, ",\"options\":");
	buf_addstr(&w->line, h->options_json ? h->options_json : "{}");
	snprintf(origin, sizeof(origin), "%lld", (long long)h->origin_ns);
	buf_addstr(&w->line, ",\"origin_ns\":\"");
	buf_addstr(&w->line, origin);
	buf_addstr(&w->line, "\",\"clock\":\"realtime\"}");
	if (!(rc = put_line(w)))
		return w;
	e = rc == NOMEM ? ENOMEM : errno;
	close(fd);
remove_file:
	unlink(path);	/* no header: not a file of the session */
fail:
	buf_release(&w->line);
	free(w);
	errno = e;
	return NULL;
}

int64_t wire_string(struct wire *w, const char *s)
{
	size_t j;
	uint64_t h;
	char *copy;
	if (!s)
		return 0;
	if ((w->nvalues + 1) * 2 > w->nslots) {
		size_t i, n = w->nslots ? w->nslots * 2 : 1024;
		struct strslot *slots = calloc(n, sizeof(*slots));
		if (!slots)
			return -1;
		for (i = 0; i < w->nslots; i++) {
			if (!w->slots[i].s)
				continue;
			j = hash_str(w->slots[i].s) & (n - 1);
			while (slots[j].s)
				j = (j + 1) & (n - 1);
			slots[j] = w->slots[i];
		}
		free(w->slots);
		w->slots = slots;
		w->nslots = n;
	}
	h = hash_str(s);
	for (j = h & (w->nslots - 1); w->slots[j].s; j = (j + 1) & (w->nslots - 1))
		if (!strcmp(w->slots[j].s, s))
			return w->slots[j].id;
	if (ALLOC_GROW_SOFT(w->values, w->nvalues + 1, w->avalues) || !(copy = strdup(s)))
		return -1;
	w->values[w->nvalues] = copy;
	w->slots[j].s = w->values[w->nvalues];
	w->slots[j].id = (int64_t)++w->nvalues;
	return w->slots[j].id;
}

const char *wire_text(const struct wire *w, int64_t id)
{
	return id > 0 && (uint64_t)id <= w->nvalues ? w->values[id - 1] : NULL;
}

/* Declare the strings added since the last declaration; on a failed write they wait for the next one. */
static int declare_strings(struct wire *w)
{
	size_t i;
	int rc;
	if (w->declared == w->nvalues)
		return 0;
	buf_addstr(&w->line, "{\"type\":\"strings\"," VKEY ",\"ids\":[");
	for (i = w->declared; i < w->nvalues; i++) {
		if (i > w->declared)
			buf_addch(&w->line, ',');
		buf_addi64(&w->line, (int64_t)i + 1);
	}
	buf_addstr(&w->line, "],\"values\":[");
	for (i = w->declared; i < w->nvalues; i++) {
		if (i > w->declared)
			buf_addch(&w->line, ',');
		json_quote(&w->line, w->values[i], strlen(w->values[i]));
	}
	buf_addstr(&w->line, "]}");
	rc = put_line(w);
	if (!rc)
		w->declared = w->nvalues;
	return rc;	/* NOMEM: a shorter list may fit next time */
}

/* Write type t's buffered rows as one batch line numbered seq; 0 or -1. */
static int put_batch(struct wire *w, enum rec_type t, int64_t seq)
{
	const struct rec_spec *r = &rec_specs[t];
	const struct pending *p = &w->p[t];
	size_t i;
	int c;
	buf_addstr(&w->line, "{\"type\":\"");
	buf_addstr(&w->line, r->wire);
	buf_addstr(&w->line, "\"," VKEY ",\"seq\":");
	buf_addi64(&w->line, seq);
	buf_addstr(&w->line, ",\"n\":");
	buf_addi64(&w->line, (int64_t)p->n);
	for (c = 0; c < r->nfields; c++) {
		enum field_kind k = r->fields[c].kind;
		if (k == F_OPTN) {	/* an optional field no row has is left out, as readers allow */
			for (i = 0; i < p->n && p->rows[i * (size_t)r->nfields + (size_t)c].null; i++)
				;
			if (i == p->n)
				continue;
		}
		buf_addch(&w->line, ',');
		add_key(&w->line, r->fields[c].wire);
		buf_addch(&w->line, '[');
		for (i = 0; i < p->n; i++) {
			const struct value *v = &p->rows[i * (size_t)r->nfields + (size_t)c];
			if (i)
				buf_addch(&w->line, ',');
			if (v->null && (k == F_TIMEN || k == F_INTN || k == F_OPTN || k == F_NUM))
				buf_addstr(&w->line, "null");
			else if (k == F_TIME || k == F_TIMEN)
				buf_addi64(&w->line, (int64_t)((uint64_t)v->i - (uint64_t)w->origin));	/* (a garbage time wraps, no UB) */
			else if (k == F_NUM)
				buf_addf(&w->line, "%.17g", v->d);
			else if (k == F_TEXT)
				json_quote(&w->line, v->s ? v->s : "", v->s ? strlen(v->s) : 0);
			else if (k == F_OPT && v->null)
				buf_addi64(&w->line, -1);
			else
				buf_addi64(&w->line, v->null ? 0 : v->i);
		}
		buf_addch(&w->line, ']');
	}
	buf_addch(&w->line, '}');
	return put_line(w);
}

/*
 * Write type t's buffered rows as one batch line and empty the buffer, written or not: rows of a line
 * that cannot be written are lost, counted in w->lost, and leave a gap in seq that readers report.
 * Rows of a line that could not be built for lack of memory were never written: they are counted in
 * w->nomem, leave the totals and take no seq. Returns 0, or -1 on a write error.
 */
static int flush_type(struct wire *w, enum rec_type t)
{
	const struct rec_spec *r = &rec_specs[t];
	struct pending *p = &w->p[t];
	int64_t seq;
	size_t i;
	int rc;
	if (!p->n)
		return 0;
	seq = p->seq++;
	rc = declare_strings(w);
	if (!rc)
		rc = put_batch(w, t, seq);
	if (rc == NOMEM) {
		w->nomem[t] += (int64_t)p->n;
		p->total -= (int64_t)p->n;
		p->seq--;
		rc = 0;
	} else if (rc) {
		w->lost += (int64_t)p->n;
	}
	for (i = 0; i < p->n * (size_t)r->nfields; i++)
		if (r->fields[i % (size_t)r->nfields].kind == F_TEXT)
			free((char *)p->rows[i].s);
	p->n = 0;
	return rc;
}

int wire_add(struct wire *w, enum rec_type t, const struct value *vals)
{
	const struct rec_spec *r = &rec_specs[t];
	struct pending *p = &w->p[t];
	struct value *row;
	int c;
	for (c = 0; c < r->nfields; c++)
		if ((r->fields[c].kind == F_STR || r->fields[c].kind == F_STRTEXT) && vals[c].i < 0)
			goto nomem;	/* wire_string found no memory for one of its strings */
	if (!p->rows && !(p->rows = calloc(BATCH_ROWS * (size_t)r->nfields, sizeof(*p->rows))))
		goto nomem;
	row = &p->rows[p->n * (size_t)r->nfields];
	memcpy(row, vals, (size_t)r->nfields * sizeof(*vals));
	for (c = 0; c < r->nfields; c++) {
		if (r->fields[c].kind == F_TEXT && !(row[c].s = strdup(vals[c].s ? vals[c].s : ""))) {
			while (c-- > 0)
				if (r->fields[c].kind == F_TEXT)
					free((char *)row[c].s);
			goto nomem;
		}
	}
	p->n++;
	p->total++;
	return p->n == BATCH_ROWS ? flush_type(w, t) : 0;
nomem:
	w->nomem[t]++;
	return 0;
}

void wire_nomem(struct wire *w, enum rec_type t, int64_t n)
{
	w->nomem[t] += n;
}

/* A drops line (source "memory") per type for the records dropped for lack of memory since the last. */
static int put_nomem(struct wire *w, int64_t ts_ns)
{
	char what[64];
	int t, rc = 0;
	for (t = 0; t < R_COUNT; t++) {
		if (!w->nomem[t])
			continue;
		snprintf(what, sizeof(what), "%s records", rec_specs[t].wire);
		if (wire_drops(w, ts_ns, "memory", what, w->nomem[t]))
			rc = -1;	/* counted again next time */
		else
			w->nomem[t] = 0;
	}
	return rc;
}

int wire_flush(struct wire *w)
{
	int t, rc = declare_strings(w) == -1;
	for (t = 0; t < R_COUNT; t++)
		rc |= flush_type(w, t);
	rc |= put_nomem(w, realtime_ns());
	return rc ? -1 : 0;
}

int64_t wire_lost(const struct wire *w)
{
	return w->lost;
}

int wire_drops(struct wire *w, int64_t ts_ns, const char *source, const char *what, int64_t count)
{
	buf_addstr(&w->line, "{\"type\":\"drops\"," VKEY ",\"ts\":");
	buf_addi64(&w->line, ts_ns - w->origin);
	buf_addstr(&w->line, ",\"source\":");
	json_quote(&w->line, source, strlen(source));
	buf_addstr(&w->line, ",\"what\":");
	json_quote(&w->line, what, strlen(what));
	buf_addstr(&w->line, ",\"count\":");
	buf_addi64(&w->line, count);
	buf_addch(&w->line, '}');
	return put_line(w) ? -1 : 0;
}

int wire_window(struct wire *w, int64_t start_ns, int64_t end_ns, int64_t ranges_cut)
{
	buf_addstr(&w->line, "{\"type\":\"window\"," VKEY ",\"start\":");
	buf_addi64(&w->line, start_ns - w->origin);
	if (end_ns >= 0) {
		buf_addstr(&w->line, ",\"end\":");
		buf_addi64(&w->line, end_ns - w->origin);
		buf_addstr(&w->line, ",\"ranges_cut\":");
		buf_addi64(&w->line, ranges_cut);
	}
	buf_addch(&w->line, '}');
	return put_line(w) ? -1 : 0;
}

int wire_error(struct wire *w, int64_t ts_ns, const char *what, const char *reason)
{
	buf_addstr(&w->line, "{\"type\":\"error\"," VKEY ",\"ts\":");
	buf_addi64(&w->line, ts_ns - w->origin);
	buf_addstr(&w->line, ",\"what\":");
	json_quote(&w->line, what, strlen(what));
	buf_addstr(&w->line, ",\"reason\":");
	json_quote(&w->line, reason, strlen(reason));
	buf_addch(&w->line, '}');
	return put_line(w) ? -1 : 0;
}

/* Free everything of w. */
static void wire_free(struct wire *w)
{
	int t;
	for (t = 0; t < R_COUNT; t++) {
		struct pending *p = &w->p[t];
		size_t i;
		for (i = 0; p->rows && i < p->n * (size_t)rec_specs[t].nfields; i++)
			if (rec_specs[t].fields[i % (size_t)rec_specs[t].nfields].kind == F_TEXT)
				free((char *)p->rows[i].s);
		free(p->rows);
	}
	for (t = 0; (size_t)t < w->nvalues; t++)
		free(w->values[t]);
	free(w->values);
	free(w->slots);
	buf_release(&w->line);
	free(w);
}

void wire_discard(struct wire *w)
{
	close(w->fd);
	wire_free(w);
}

int wire_close(struct wire *w, int64_t end_ns, int clean)
{
	int t, rc = wire_flush(w), first;
	if (clean && !rc) {
		buf_addstr(&w->line, "{\"type\":\"end\"," VKEY ",\"ts\":");
		buf_addi64(&w->line, end_ns - w->origin);
		buf_addstr(&w->line, ",\"totals\":{");
		for (t = 0, first = 1; t < R_COUNT; t++) {
			if (!w->p[t].total)
				continue;
			if (!first)
				buf_addch(&w->line, ',');
			first = 0;
			add_key(&w->line, rec_specs[t].wire);
			buf_addi64(&w->line, w->p[t].total);
		}
		buf_addstr(&w->line, "},\"batches\":{");
		for (t = 0, first = 1; t < R_COUNT; t++) {
			if (!w->p[t].seq)
				continue;
			if (!first)
				buf_addch(&w->line, ',');
			first = 0;
			add_key(&w->line, rec_specs[t].wire);
			buf_addi64(&w->line, w->p[t].seq);
		}
		buf_addstr(&w->line, "}}");
		rc = put_line(w) ? -1 : 0;
	}
	if (close(w->fd))
		rc = -1;
	wire_free(w);
	return rc ? -1 : 0;
}
