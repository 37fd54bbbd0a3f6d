/*
 * libFuzzer target: the report renderers (report/, tables as lib/table.c models them) on hostile names. The input,
 * cut at each 0xff byte, is a list of names (control characters, invalid UTF-8, quotes, <script>, =cmd,
 * anything): they become a table's title, note, footer and rows, and the names of kernels in a session
 * database, and every format renders them: text, csv, json, md, html, xlsx and the trace.
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
	sqlite3 *db;
	const char *path;
	int f;

	while (at <= size && n < MAX_NAMES) {
		const uint8_t *end = memchr(data + at, 0xff, size - at);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;
		names[n++] = xstrndup((const char *)data + at, len);	/* (cut at a NUL: C strings) */
		at += len + 1;
	}
	util_init("fuzz");
	util_set_quiet(getenv("FUZZ_VERBOSE") ? 0 : 2);
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
	db = db_open(":memory:", DB_WRITE);
	if (db)
		fill_db(db, names, n);
	path = fuzz_file("", 0);
	for (f = 0; formats[f].name && path; f++) {
		struct report_doc d = { &ts, db, 1, &ro, NULL, &formats[f], &to };
		FILE *out = fopen("/dev/null", "w");
		if (!(formats[f].programs & FMT_REPORT) || !out || (formats[f].events && !db)) {
			if (out)
				fclose(out);
			continue;
		}
		/* (a file of its own for xlsx and the trace; the others on the stream, as without -o) */
		report_renderers[formats[f].id].render(out, formats[f].needs_path || formats[f].events ? path : NULL, &d);
		fclose(out);
	}
	db_close(db);
	table_free(t);
	for (i = 0; i < n; i++)
		free(names[i]);
	return 0;
}
