/*
 * libFuzzer target: the report renderers (report/, tables as lib/table.c models them) on hostile names. The
 * input's first byte picks the format (text, csv, json, md, html, xlsx or the trace: one a run, so that each
 * input costs one rendering); the rest, cut at each 0xff byte, is a list of names (control characters,
 * invalid UTF-8, quotes, <script>, =cmd, anything): they become a table's title, note, footer and rows, and,
 * for the formats that read the session database (html, the trace), the names of kernels in one.
 */
#include "harness.h"
#include "report.h"

#include <string.h>

#define MAX_NAMES 64

static void add_kernel(struct sink *s, const char *name, size_t len, int64_t at)
{
	struct value v[REC_MAX_FIELDS];
	int i;
	memset(v, 0, sizeof(v));
	for (i = 0; i < rec_specs[R_KERNEL].nfields; i++)
		v[i].null = rec_specs[R_KERNEL].fields[i].kind == F_OPTN;
	v[rec_field(R_KERNEL, "start")].i = at;
	v[rec_field(R_KERNEL, "end")].i = at + 100;
	v[rec_field(R_KERNEL, "name")].i = sink_string(s, name, len);
	sink_add(s, R_KERNEL, v);
}

/* A session of one process whose kernels have the names, for the formats that read the database. */
static void fill_db(sqlite3 *db, char **names, size_t n)
{
	struct sink_process p = { "fuzz", "ndjson", "fuzz", "fuzz", names[0], NULL, names[n - 1] };
	struct sink *s = sink_open(db);
	size_t i;
	p.rank = -1;
	p.origin_ns = 1763822038000000000;
	if (!s || sink_tx_begin(s) || sink_process_begin(s, &p)) {
		sink_free(s);
		return;
	}
	for (i = 0; i < n; i++)
		add_kernel(s, names[i], strlen(names[i]), p.origin_ns + (int64_t)i * 1000);
	if (sink_process_end(s, 1, 0) || sink_tx_commit(s))
		sink_tx_rollback(s);
	sink_free(s);
}

static char out_path[300];	/* the file xlsx and the trace write */

static void out_remove(void)
{
	unlink(out_path);
}

/*
 * A session database with no session yet at the path of the harness's input file, for this input: an
 * empty database db_open made once, its bytes written there each time (opening it costs far less than
 * making the schema anew); NULL on failure.
 */
static sqlite3 *empty_db(void)
{
	static struct buf image;
	const char *path;
	if (!image.len) {
		FILE *f;
		char chunk[4096];
		size_t got;
		sqlite3 *db;
		if (!(path = fuzz_file("", 0)) || !(db = db_open(path, DB_WRITE)))
			return NULL;
		db_close(db);
		if (!(f = fopen(path, "rb")))
			return NULL;
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			buf_add(&image, chunk, got);
		fclose(f);
	}
	path = fuzz_file(image.s, image.len);
	return path ? db_open(path, DB_WRITE) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct colspec cols[] = { { "name", "Name", C_TEXT }, { "total_ns", "Total", C_NS },
					       { "calls", "Calls", C_INT }, { "pct", "Time %", C_PCT },
					       { "start_ns", "Start", C_TIME } };
	char *names[MAX_NAMES];
	size_t n = 0, at = 0, i;
	struct table *t;
	struct tables ts;
	struct render_opts ro = { 0, 40, 1, 1763822038000000000 };
	struct trace_opts to;
	static int ready, nformats;
	int needs_db;
	sqlite3 *db = NULL;
	const struct format *fmt;
	FILE *out;

	if (!ready) {
		util_init("fuzz");
		util_set_quiet(getenv("FUZZ_VERBOSE") ? 0 : 2);
		while (formats[nformats].name)
			nformats++;
		if (!fuzz_file("", 0))
			return 0;
		snprintf(out_path, sizeof(out_path), "%s.out", fuzz_path);
		atexit(out_remove);
		ready = 1;
	}
	if (!size)
		return 0;
	fmt = &formats[data[0] % nformats];
	needs_db = fmt->id == FMT_HTML || fmt->events;	/* (the formats whose renderers query d->db) */
	data++;
	size--;
	while (at <= size && n < MAX_NAMES) {
		const uint8_t *end = memchr(data + at, 0xff, size - at);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;
		names[n++] = xstrndup((const char *)data + at, len);	/* (cut at a NUL: C strings) */
		at += len + 1;
	}
	t = table_new("hotspots", names[0]);
	table_cols(t, cols, NCOLS(cols));
	t->note = xstrdup(names[n / 2]);
	t->footer = xstrdup(names[n - 1]);
	for (i = 0; i < n; i++) {
		size_t r = table_row(t);
		table_set_text(t, r, 0, names[i]);
		table_set_int(t, r, 1, (int64_t)(i * 977));
		table_set_int(t, r, 2, (int64_t)i - 1);
		table_set_real(t, r, 3, i ? 100.0 / (double)i : -0.0);
		table_set_int(t, r, 4, ro.origin + (int64_t)i);
	}
	ts.v = &t;
	ts.n = 1;
	memset(&to, 0, sizeof(to));
	if (needs_db && (db = empty_db()))
		fill_db(db, names, n);
	out = fopen("/dev/null", "w");
	if ((fmt->programs & FMT_REPORT) && out && (db || !needs_db)) {
		struct report_doc d = { &ts, db, 1, &ro, NULL, fmt, &to };
		/* (a file of its own for xlsx and the trace; the others on the stream, as without -o) */
		report_renderers[fmt->id].render(out, fmt->needs_path || fmt->events ? out_path : NULL, &d);
	}
	if (out)
		fclose(out);
	db_close(db);
	table_free(t);
	for (i = 0; i < n; i++)
		free(names[i]);
	return 0;
}
