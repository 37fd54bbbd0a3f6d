/*
 * ndjson: the gpuprof wire format (schemas/wire-format.md) from a session directory, .ndjson or
 * .ndjson.gz file. A decoder thread (decode.c) parses and checks lines while this thread writes them,
 * so memory stays bounded by a few lines whatever the file size.
 */
#include "reader.h"
#include "decode.h"
#include "intmap.h"
#include "json.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PRINTED_ERRORS 20

/* Database id of wire string id `key`, or -1 when undeclared. */
static int64_t idmap_get(const struct intmap *m, int64_t key)
{
	int64_t v;
	return intmap_get(m, key, &v) ? v : -1;
}

/* State of one file being read. */
struct file {
	struct sink *sink;
	const struct reader_opts *opts;
	const char *path;
	int64_t line;
	char excerpt[EXCERPT + 1];
	int header_seen;
	int64_t version;
	int64_t origin;
	struct intmap strings;		/* wire string id -> database id */
	int64_t next_seq[R_COUNT];
	int errors_at_batch[R_COUNT];	/* f->errors when the last batch of the type was read */
	int64_t rejected_rows[R_COUNT];
	int clean_end;
	int64_t end_ns;
	int errors;		/* rejected lines */
	int64_t nuls;		/* \u0000 escapes in the lines read, each U+FFFD (sink_repaired) */
	int newer;		/* header names a newer version: nothing may be written */
	struct value vals[REC_MAX_FIELDS];
};

/* Reject the current line: print FILE:LINE: reason and record it. Returns 0 unless recording fails. */
static int reject(struct file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reject(struct file *f, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (f->errors < MAX_PRINTED_ERRORS)
		error("%s:%lld: %s", f->path, (long long)f->line, reason);
	else if (f->errors == MAX_PRINTED_ERRORS)
		error("%s: more rejected lines follow; all are recorded in table ingest_errors", f->path);
	f->errors++;
	return sink_ingest_error(f->sink, f->path, f->line, reason, f->excerpt);
}

static int add_time(struct file *f, int64_t rel, int64_t *out)
{
	if (__builtin_add_overflow(f->origin, rel, out))
		return -1;
	return 0;
}

/* A decoded batch: sequence checks, string ids to database ids, one sink row per record. */
static int write_batch(struct file *f, const struct item *it)
{
	const struct rec_spec *r = &rec_specs[it->type];
	int t = it->type, nf = r->nfields, c;
	int64_t i;

	if (it->seq < f->next_seq[t]) {
		f->rejected_rows[t] += it->n;
		return reject(f, "%s batch: seq %lld repeats or goes back (expected %lld)", r->wire,
			      (long long)it->seq, (long long)f->next_seq[t]);
	}
	if (it->seq > f->next_seq[t] && f->errors_at_batch[t] == f->errors) {
		/* Only when no rejected line since the previous batch explains the gap. */
		int64_t lost = it->seq - f->next_seq[t];
		warning("%s:%lld: %lld %s batch(es) missing before seq %lld", f->path, (long long)f->line,
			(long long)lost, r->wire, (long long)it->seq);
		if (sink_drop(f->sink, 0, "wire", "batches", lost))
			return -1;
	}
	f->next_seq[t] = it->seq + 1;
	f->errors_at_batch[t] = f->errors;
	/*
	 * The decoder checked that each string id was declared; a line that declared one may still have been
	 * rejected here (after the session-end record, say): such a batch is rejected whole.
	 */
	for (c = 0; c < nf; c++)
		if (r->fields[c].kind == F_STR || r->fields[c].kind == F_STRTEXT)
			for (i = 0; i < it->n; i++)
				if (!it->nulls[i * nf + c] && idmap_get(&f->strings, it->vals[i * nf + c]) < 0) {
					f->rejected_rows[t] += it->n;
					return reject(f, "%s batch: field \"%s\" uses string id %lld of a rejected line",
						      r->wire, r->fields[c].wire, (long long)it->vals[i * nf + c]);
				}

	for (i = 0; i < it->n; i++) {
		const int64_t *v = it->vals + i * nf;
		const uint8_t *null = it->nulls + i * nf;
		for (c = 0; c < nf; c++) {
			struct value *out = &f->vals[c];
			out->null = null[c];
			if (out->null)
				continue;
			switch (r->fields[c].kind) {
			case F_STR:
			case F_STRTEXT:
				out->i = idmap_get(&f->strings, v[c]);
				break;
			case F_NUM:
				memcpy(&out->d, &v[c], sizeof(double));
				break;
			case F_TEXT:
				out->s = it->texts.s + v[c];
				break;
			default:
				out->i = v[c];
			}
		}
		if (sink_add(f->sink, t, f->vals))
			return -1;
	}
	return 0;
}

static int read_strings(struct file *f, struct json_doc *d, const struct jnode *root)
{
	const struct jnode *ids = json_get(d, root, "ids"), *vals = json_get(d, root, "values");
	const struct jnode *a, *b;
	int64_t again = 0;
	if (!ids || !vals || ids->type != J_ARRAY || vals->type != J_ARRAY)
		return reject(f, "strings: \"ids\" and \"values\" must be arrays");
	if (ids->len != vals->len)
		return reject(f, "strings: %u ids but %u values", ids->len, vals->len);
	for (a = json_first(d, ids), b = json_first(d, vals); a; a = json_next(d, a), b = json_next(d, b)) {
		if (a->type != J_INT || a->u.i <= 0)
			return reject(f, "strings: ids must be positive integers");
		if (b->type != J_STRING)
			return reject(f, "strings: values must be strings");
	}
	/*
	 * Every id of the line is declared, even after one that was declared before with another value (it
	 * keeps its first value and the line is rejected): the decoder took them all as declared, and a batch
	 * that uses one must find it.
	 */
	for (a = json_first(d, ids), b = json_first(d, vals); a; a = json_next(d, a), b = json_next(d, b)) {
		int64_t old = idmap_get(&f->strings, a->u.i), id = sink_string(f->sink, b->u.s, b->len);
		if (id < 0)
			return -1;
		if (old >= 0 && old != id)
			again = again ? again : a->u.i;
		else
			intmap_put(&f->strings, a->u.i, id);
	}
	if (again)
		return reject(f, "strings: id %lld declared again with another value", (long long)again);
	return 0;
}

static int read_drops(struct file *f, struct json_doc *d, const struct jnode *root)
{
	const char *source = json_get_str(d, root, "source"), *what = json_get_str(d, root, "what");
	int64_t count, ts = 0, abs_ts = 0;
	if (!source || json_get_i64(d, root, "count", &count) || count < 0)
		return reject(f, "drops: needs \"source\" (string) and \"count\" (integer >= 0)");
	if (!json_get_i64(d, root, "ts", &ts) && add_time(f, ts, &abs_ts))
		return reject(f, "drops: \"ts\" overflows the time origin");
	if (count > 0)
		warning("%s: the collector lost %lld %s (%s)", f->path, (long long)count,
			what ? what : "records", source);
	return sink_drop(f->sink, abs_ts, source, what ? what : "records", count);
}

/* A trace window: written when it opens (no end) and again, same start, when its end is known or grows. */
static int read_window(struct file *f, struct json_doc *d, const struct jnode *root)
{
	const struct jnode *e = json_get(d, root, "end");
	int64_t start, end = -1, cut = 0, abs_start, abs_end = -1;
	if (json_get_i64(d, root, "start", &start) || add_time(f, start, &abs_start))
		return reject(f, "window: needs \"start\" (integer ns from the origin)");
	if (e && e->type != J_NULL &&
	    (json_get_i64(d, root, "end", &end) || add_time(f, end, &abs_end) || abs_end < abs_start))
		return reject(f, "window: \"end\" is not an integer at or after \"start\"");
	if (json_get(d, root, "ranges_cut") && (json_get_i64(d, root, "ranges_cut", &cut) || cut < 0))
		return reject(f, "window: \"ranges_cut\" is not an integer >= 0");
	return sink_window(f->sink, abs_start, abs_end, cut);
}

static int read_error(struct file *f, struct json_doc *d, const struct jnode *root)
{
	const char *reason = json_get_str(d, root, "reason");
	int64_t ts = 0, abs_ts = 0;
	if (!reason)
		return reject(f, "error: needs \"reason\" (string)");
	if (!json_get_i64(d, root, "ts", &ts) && add_time(f, ts, &abs_ts))
		return reject(f, "error: \"ts\" overflows the time origin");
	return sink_collector_error(f->sink, abs_ts, json_get_str(d, root, "what"), reason);
}

static int read_end(struct file *f, struct json_doc *d, const struct jnode *root)
{
	const struct jnode *totals = json_get(d, root, "totals"), *c;
	int64_t ts;
	if (json_get_i64(d, root, "ts", &ts) || add_time(f, ts, &f->end_ns))
		return reject(f, "end: missing or bad \"ts\"");
	if (totals && totals->type != J_OBJECT)
		return reject(f, "end: \"totals\" must be an object");
	for (c = totals ? json_first(d, totals) : NULL; c; c = json_next(d, c)) {
		int t = rec_by_wire(c->key);
		int64_t seen, lost;
		if (t < 0 || c->type != J_INT)
			continue;
		seen = sink_count(f->sink, t) + f->rejected_rows[t];
		lost = c->u.i - seen;
		if (lost > 0 && !f->errors) {
			warning("%s: %lld %s record(s) written by the collector are missing from the file",
				f->path, (long long)lost, c->key);
			if (sink_drop(f->sink, f->end_ns, "wire", "records", lost))
				return -1;
		}
	}
	f->clean_end = 1;
	return 0;
}

/* The first line. Returns 0 when the process may be read, 1 to skip the file, -1 on failure. */
static int read_header(struct file *f, struct json_doc *d, const struct jnode *root, const char *input)
{
	const char *uuid = json_get_str(d, root, "session"), *origin = json_get_str(d, root, "origin_ns");
	const struct jnode *args = json_get(d, root, "args"), *opts = json_get(d, root, "options");
	struct sink_process p;
	struct buf a, o;
	int64_t pid, ppid = 0;
	int rc;

	if (!uuid || !*uuid || strlen(uuid) > 128)
		return reject(f, "header: missing or bad \"session\""), 1;
	if (json_get_i64(d, root, "pid", &pid))
		return reject(f, "header: missing or bad \"pid\""), 1;
	if (!origin || parse_i64(origin, strlen(origin), &f->origin))
		return reject(f, "header: \"origin_ns\" must be a string of decimal nanoseconds"), 1;
	json_get_i64(d, root, "ppid", &ppid);

	memset(&p, 0, sizeof(p));
	buf_init(&a);
	buf_init(&o);
	if (args && args->type == J_ARRAY)
		json_write(&a, d, args);
	if (opts && opts->type == J_OBJECT)
		json_write(&o, d, opts);
	p.uuid = f->opts->session ? f->opts->session : uuid;
	p.source = "ndjson";
	p.path = input;
	p.file = f->path;
	p.program = json_get_str(d, root, "program");
	p.args_json = a.len ? a.s : NULL;
	p.hostname = json_get_str(d, root, "hostname");
	p.engine = json_get_str(d, root, "engine");
	p.collector = json_get_str(d, root, "collector");
	p.options_json = o.len ? o.s : NULL;
	p.format_version = f->version;
	p.origin_ns = f->origin;
	p.pid = pid;
	p.ppid = ppid;
	p.rank = -1;
	rc = sink_process_begin(f->sink, &p);
	buf_release(&a);
	buf_release(&o);
	if (rc == 1)
		info("%s: session %s, process %lld is already in the database; skipped", f->path, p.uuid,
		     (long long)pid);
	if (rc == 0)
		f->header_seen = 1;
	return rc;
}

enum line_kind { L_HEADER, L_STRINGS, L_DROPS, L_ERROR, L_END, L_WINDOW };

static const struct {
	const char *type;
	enum line_kind kind;
} line_kinds[] = {
	{ "header", L_HEADER }, { "strings", L_STRINGS }, { "drops", L_DROPS }, { "error", L_ERROR },
	{ "end", L_END }, { "window", L_WINDOW },
};

/* A record that is no batch, already checked for JSON, type and version by the decoder. */
static int write_line(struct file *f, struct json_doc *d, const struct item *it)
{
	const struct jnode *root;
	const char *type;
	size_t i;
	if (json_parse(d, it->text.s, it->text.len))
		return reject(f, "invalid JSON: %s at column %zu", d->err, d->err_off + 1);
	root = json_root(d);
	type = json_get_str(d, root, "type");
	for (i = 0; i < sizeof(line_kinds) / sizeof(line_kinds[0]); i++)
		if (!strcmp(line_kinds[i].type, type))
			break;
	if (i == sizeof(line_kinds) / sizeof(line_kinds[0]))
		return reject(f, "unknown record type \"%s\"", type);
	switch (line_kinds[i].kind) {
	case L_HEADER: return reject(f, "a second session header");
	case L_STRINGS: return read_strings(f, d, root);
	case L_DROPS: return read_drops(f, d, root);
	case L_ERROR: return read_error(f, d, root);
	case L_END: return read_end(f, d, root);
	case L_WINDOW: return read_window(f, d, root);
	}
	return 0;
}

/*
 * One file. Returns EXIT_OK, EXIT_DATA (lines rejected, the rest kept) or EXIT_SYSTEM. Sets *newer when
 * the file is of a newer format version, in which case the caller must write nothing.
 */
static int read_file(struct sink *sink, const char *path, const char *input, const struct reader_opts *o,
		     int *newer)
{
	struct file f;
	struct json_doc d;
	struct decoder *dec;
	const struct item *it;
	int status = EXIT_OK, skip = 0, done = 0;

	if (!(dec = decode_start(path)))
		return EXIT_SYSTEM;
	memset(&f, 0, sizeof(f));
	f.sink = sink;
	f.opts = o;
	f.path = path;
	json_doc_init(&d);

	while (!done && (it = decode_next(dec))) {
		int fail = 0;
		f.line = it->line;
		memcpy(f.excerpt, it->excerpt, sizeof(f.excerpt));
		switch (it->kind) {
		case IT_EOF:
			done = 1;
			continue;
		case IT_FAIL:
			status = EXIT_SYSTEM;
			goto out;
		case IT_CUT:
			warning("%s:%lld: last line is cut off (the process was killed?); kept %lld complete lines",
				path, (long long)f.line, (long long)f.line - 1);
			done = 1;
			continue;
		case IT_REJECT:
			fail = reject(&f, "%s", it->reason);
			if (it->first) {
				status = EXIT_DATA;
				goto out;
			}
			break;
		case IT_LINE:
			f.nuls += it->nuls;
			if (!f.header_seen) {
				int rc;
				if (json_parse(&d, it->text.s, it->text.len) ||
				    json_get_i64(&d, json_root(&d), "v", &f.version))
				{
					error("%s: internal error: the header does not parse twice", path);
					status = EXIT_SYSTEM;
					goto out;
				}
				if (f.version > WIRE_VERSION || f.version < 1) {
					error("%s: wire format version %lld is not supported (this gpuprof reads versions "
					      "1 to %d); nothing was ingested", path, (long long)f.version, WIRE_VERSION);
					*newer = 1;
					status = EXIT_DATA;
					goto out;
				}
				rc = read_header(&f, &d, json_root(&d), input);
				if (rc) {
					skip = rc == 1;
					status = rc < 0 ? EXIT_SYSTEM : f.errors ? EXIT_DATA : EXIT_OK;
					goto out;
				}
				break;
			}
			if (f.clean_end) {
				fail = reject(&f, "record after the session-end record");
				break;
			}
			fail = write_line(&f, &d, it);
			break;
		case IT_BATCH:
			f.nuls += it->nuls;
			if (f.clean_end) {
				fail = reject(&f, "record after the session-end record");
				break;
			}
			fail = write_batch(&f, it);
			break;
		}
		if (fail) {
			status = EXIT_SYSTEM;
			goto out;
		}
	}
	if (!f.header_seen && !f.errors && !skip) {
		f.line = 0;
		f.excerpt[0] = '\0';
		reject(&f, "empty file: no session header");
	}
	if (f.errors)
		status = EXIT_DATA;
	if (f.header_seen) {
		if (!f.clean_end)
			warning("%s: no session-end record: the process did not finish cleanly (clean_end = 0)", path);
		if (sink_repaired(sink, SINK_REPAIR_NUL, f.nuls) ||
		    sink_process_end(sink, f.clean_end, f.clean_end ? f.end_ns : 0))
			status = EXIT_SYSTEM;
		else
			info("%s: %lld kernels, %lld memcpys, %lld ranges%s", path,
			     (long long)sink_count(sink, R_KERNEL), (long long)sink_count(sink, R_MEMCPY),
			     (long long)sink_count(sink, R_RANGE),
			     f.errors ? "; rejected lines are in table ingest_errors" : "");
	}
out:
	decode_finish(dec);
	json_doc_release(&d);
	intmap_release(&f.strings);
	return status;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_wire_file(const char *name)
{
	return ends_with(name, ".ndjson") || ends_with(name, ".ndjson.gz");
}

/* The wire-format files of a session directory, sorted; NULL-terminated, caller frees. */
static char **list_dir(const char *dir, size_t *count)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0;
	if (!dh) {
		error("%s: cannot open directory: %s", dir, strerror(errno));
		return NULL;
	}
	while ((e = readdir(dh))) {
		struct buf p;
		if (e->d_name[0] == '.' || !is_wire_file(e->d_name))
			continue;
		buf_init(&p);
		buf_addf(&p, "%s/%s", dir, e->d_name);
		ALLOC_GROW(names, n + 2, alloc);
		names[n++] = p.s;
	}
	closedir(dh);
	ALLOC_GROW(names, n + 1, alloc);
	names[n] = NULL;
	xqsort(names, n, sizeof(*names), cmp_str);
	*count = n;
	return names;
}

static int ndjson_ingest(struct sink *s, const char *path, const struct reader_opts *o)
{
	struct stat st;
	char **files, *single[2] = { NULL, NULL };
	size_t i, n = 1;
	int status = EXIT_OK, newer = 0;

	if (stat(path, &st))
		return error("%s: %s", path, strerror(errno)), EXIT_SYSTEM;
	if (S_ISDIR(st.st_mode)) {
		if (!(files = list_dir(path, &n)))
			return EXIT_SYSTEM;
		if (!n) {
			error("%s: no .ndjson or .ndjson.gz files in this directory", path);
			free(files);
			return EXIT_DATA;
		}
	} else {
		single[0] = (char *)path;
		files = single;
	}
	if (sink_tx_begin(s)) {
		status = EXIT_SYSTEM;
		goto out;
	}
	for (i = 0; i < n && status != EXIT_SYSTEM && !newer; i++) {
		int rc = read_file(s, files[i], path, o, &newer);
		if (rc > status)
			status = rc;
	}
	if (status == EXIT_SYSTEM || newer)
		sink_tx_rollback(s);
	else if (sink_tx_commit(s))
		status = EXIT_SYSTEM;
out:
	if (files != single) {
		for (i = 0; i < n; i++)
			free(files[i]);
		free(files);
	}
	return status;
}

/* A session directory, or a file named as wire format (its content then says what is wrong with it). */
static int ndjson_detect(const char *path, int is_dir, const char *head, size_t n)
{
	(void)head;
	(void)n;
	return is_dir || is_wire_file(path);
}

/* The session header, the first line of every wire-format file. */
static const struct json_claim ndjson_claims[] = { { "type", "header" }, { NULL, NULL } };

const struct reader ndjson_reader = {
	"ndjson", "gpuprof wire format: a session directory, .ndjson or .ndjson.gz",
	ndjson_claims, ndjson_detect, ndjson_ingest
};
