/*
 * sink_spool: a sink that writes its calls to a file instead of a database (gpuprof-ingest -j: a reader
 * in a child process), and their replay into a real sink by the one writer. The spooling sink answers
 * what a reader asks as the database would for a new process: strings get ids of its own (1, 2, ... per
 * process, sent before their first use), counts are its own, and every process is new: the writer,
 * replaying, maps the ids to the session's and skips a process the database has (as a reader would
 * have been told to).
 *
 * The file is the calls in order, each a tag byte and its arguments: integers as 8 bytes, doubles as 8
 * bytes, strings as a 4-byte length (0xffffffff for NULL) and the bytes, all in this machine's order (the
 * writer is the same program on the same machine).
 */
#include "sink_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	SP_TX_BEGIN = 'B', SP_TX_COMMIT = 'C', SP_TX_ROLLBACK = 'R', SP_PROCESS = 'P', SP_END = 'E', SP_STRING = 'S',
	SP_ADD = 'A', SP_SHIFT = 'T', SP_DROP = 'D', SP_CERR = 'K', SP_SKIPPED = 'Q', SP_IERR = 'I', SP_RANK = 'N',
	SP_MESSAGE = 'M', SP_WINDOW = 'W', SP_REPAIRED = 'U'
};

/* ---- writing ---- */

static void put_tag(struct sink *s, int tag)
{
	putc_unlocked(tag, s->spool);
}

static void put_i64(struct sink *s, int64_t v)
{
	fwrite_unlocked(&v, sizeof(v), 1, s->spool);
}

static void put_str(struct sink *s, const char *v, size_t len)
{
	uint32_t n = v ? (uint32_t)len : 0xffffffffu;
	fwrite_unlocked(&n, sizeof(n), 1, s->spool);
	if (v)
		fwrite_unlocked(v, 1, len, s->spool);
}

static void put_cstr(struct sink *s, const char *v)
{
	put_str(s, v, v ? strlen(v) : 0);
}

/* A message the reader printed: the writer prints it in its turn (util_divert_messages). */
static void spool_message(void *arg, const char *line)
{
	struct sink *s = arg;
	put_tag(s, SP_MESSAGE);
	put_cstr(s, line);
}

struct sink *sink_spool_open(FILE *f)
{
	struct sink *s = xcalloc(1, sizeof(*s));
	s->spool = f;
	util_divert_messages(spool_message, s);
	return s;
}

int sink_spool_tx(struct sink *s, int tag)
{
	if (s->check)
		sink_check_tx(s, tag);
	put_tag(s, tag == 'B' ? SP_TX_BEGIN : tag == 'C' ? SP_TX_COMMIT : SP_TX_ROLLBACK);
	if (tag == 'R') {	/* the strings written are gone with it: a process after starts them again */
		sink_strings_clear(s);
		free(s->spool_session);
		s->spool_session = NULL;
	}
	return ferror(s->spool) ? error("spool: write error") : 0;
}

int sink_spool_process(struct sink *s, const struct sink_process *p)
{
	if (s->check)
		sink_check_process(s, p);
	/*
	 * String ids are a session's: a reader may keep those of one process for the next of its session
	 * (Nsight Systems exports), so they start again only with another session.
	 */
	if (!s->spool_session || strcmp(s->spool_session, p->uuid)) {
		sink_strings_clear(s);
		s->next_string_id = 1;
		free(s->spool_session);
		s->spool_session = xstrdup(p->uuid);
	}
	memset(s->counts, 0, sizeof(s->counts));
	s->session_id = 1;	/* inside a process */
	put_tag(s, SP_PROCESS);
	put_cstr(s, p->uuid);
	put_cstr(s, p->source);
	put_cstr(s, p->path);
	put_cstr(s, p->file);
	put_cstr(s, p->program);
	put_cstr(s, p->args_json);
	put_cstr(s, p->hostname);
	put_cstr(s, p->engine);
	put_cstr(s, p->collector);
	put_cstr(s, p->options_json);
	put_i64(s, p->format_version);
	put_i64(s, p->origin_ns);
	put_i64(s, p->pid);
	put_i64(s, p->ppid);
	put_i64(s, p->rank);
	put_cstr(s, p->content);
	put_i64(s, p->session_copy);
	return ferror(s->spool) ? error("spool: write error") : 0;
}

int sink_spool_end(struct sink *s, int clean_end, int64_t end_ns)
{
	if (s->check)
		sink_check_end(s);
	put_tag(s, SP_END);
	put_i64(s, clean_end);
	put_i64(s, end_ns);
	s->session_id = 0;
	return ferror(s->spool) ? error("spool: write error") : 0;
}

void sink_spool_string(struct sink *s, int64_t id, const char *v, size_t len)
{
	if (s->check)
		sink_check_in_process(s, "sink_string");
	put_tag(s, SP_STRING);
	put_i64(s, id);
	put_str(s, v, len);
}

int sink_spool_add(struct sink *s, enum rec_type t, const struct value *vals)
{
	const struct rec_spec *r = &rec_specs[t];
	int i;
	if (s->check)
		sink_check_add(s, t, vals);
	put_tag(s, SP_ADD);
	put_tag(s, (int)t);
	for (i = 0; i < r->nfields; i++) {
		const struct value *v = &vals[i];
		putc_unlocked(v->null != 0, s->spool);
		if (v->null)
			continue;
		if (r->fields[i].kind == F_NUM)
			fwrite_unlocked(&v->d, sizeof(v->d), 1, s->spool);
		else if (r->fields[i].kind == F_TEXT)
			put_cstr(s, v->s ? v->s : "");
		else
			put_i64(s, v->i);
	}
	s->counts[t]++;
	return ferror(s->spool) ? error("spool: write error") : 0;
}

int sink_spool_shift(struct sink *s, int64_t offset_ns)
{
	if (s->check)
		sink_check_in_process(s, "sink_shift_times");
	put_tag(s, SP_SHIFT);
	put_i64(s, offset_ns);
	return 0;
}

int sink_spool_drop(struct sink *s, int64_t ts_ns, const char *source, const char *what, int64_t count)
{
	if (s->check)
		sink_check_in_process(s, "sink_drop");
	put_tag(s, SP_DROP);
	put_i64(s, ts_ns);
	put_cstr(s, source);
	put_cstr(s, what);
	put_i64(s, count);
	return 0;
}

int sink_spool_window(struct sink *s, int64_t start_ns, int64_t end_ns, int64_t ranges_cut)
{
	if (s->check)
		sink_check_in_process(s, "sink_window");
	put_tag(s, SP_WINDOW);
	put_i64(s, start_ns);
	put_i64(s, end_ns);
	put_i64(s, ranges_cut);
	return 0;
}

int sink_spool_cerr(struct sink *s, int64_t ts_ns, const char *what, const char *reason)
{
	if (s->check)
		sink_check_in_process(s, "sink_collector_error");
	put_tag(s, SP_CERR);
	put_i64(s, ts_ns);
	put_cstr(s, what);
	put_cstr(s, reason);
	return 0;
}

int sink_spool_skipped(struct sink *s, const char *file, const char *cat, const char *ph, int64_t count, int64_t gpu)
{
	if (s->check)
		sink_check_in_process(s, "sink_skipped");
	put_tag(s, SP_SKIPPED);
	put_cstr(s, file);
	put_cstr(s, cat);
	put_cstr(s, ph);
	put_i64(s, count);
	put_i64(s, gpu);
	return 0;
}

int sink_spool_ierr(struct sink *s, const char *file, int64_t line, const char *reason, const char *excerpt)
{
	put_tag(s, SP_IERR);
	put_cstr(s, file);
	put_i64(s, line);
	put_cstr(s, reason);
	put_cstr(s, excerpt);
	return 0;
}

int sink_spool_rank(struct sink *s, int64_t rank)
{
	if (s->check)
		sink_check_in_process(s, "sink_set_rank");
	put_tag(s, SP_RANK);
	put_i64(s, rank);
	return 0;
}

int sink_spool_repaired(struct sink *s, enum sink_repair what, int64_t count)
{
	if (s->check)
		sink_check_in_process(s, "sink_repaired");
	put_tag(s, SP_REPAIRED);
	put_i64(s, (int64_t)what);
	put_i64(s, count);
	return 0;
}

/* ---- replaying ---- */

/* The spool being read: a buffer refilled from the file; strings live until the next call's. */
struct spool_in {
	FILE *f;
	unsigned char *buf;
	size_t len, at;
	int bad;		/* ended inside a call */
	char *strs[16];		/* the current call's strings */
	size_t nstrs, cap[16];
};

/* Make n bytes readable at in->buf + in->at; 0, or -1 at the end of the file. */
static int need(struct spool_in *in, size_t n)
{
	if (in->len - in->at >= n)
		return 0;
	memmove(in->buf, in->buf + in->at, in->len - in->at);
	in->len -= in->at;
	in->at = 0;
	in->len += fread(in->buf + in->len, 1, (1u << 20) - in->len, in->f);
	if (in->len < n) {
		in->bad = 1;
		return -1;
	}
	return 0;
}

static int64_t get_i64(struct spool_in *in)
{
	int64_t v = 0;
	if (!need(in, sizeof(v))) {
		memcpy(&v, in->buf + in->at, sizeof(v));
		in->at += sizeof(v);
	}
	return v;
}

static double get_f64(struct spool_in *in)
{
	double v = 0;
	if (!need(in, sizeof(v))) {
		memcpy(&v, in->buf + in->at, sizeof(v));
		in->at += sizeof(v);
	}
	return v;
}

static int get_u8(struct spool_in *in)
{
	return need(in, 1) ? -1 : in->buf[in->at++];
}

/* A string of the current call (NUL-terminated; NULL for NULL), with its length in *len when asked. */
static const char *get_str(struct spool_in *in, size_t *len)
{
	uint32_t n = 0;
	size_t k = in->nstrs++ % 16, done = 0;
	if (need(in, sizeof(n)))
		return NULL;
	memcpy(&n, in->buf + in->at, sizeof(n));
	in->at += sizeof(n);
	if (n == 0xffffffffu)
		return NULL;
	if (in->cap[k] < (size_t)n + 1) {
		in->cap[k] = (size_t)n + 1;
		in->strs[k] = xrealloc(in->strs[k], in->cap[k]);
	}
	while (done < n) {	/* a string may be longer than the buffer */
		size_t take;
		if (need(in, 1))
			return NULL;
		take = in->len - in->at < n - done ? in->len - in->at : n - done;
		memcpy(in->strs[k] + done, in->buf + in->at, take);
		in->at += take;
		done += take;
	}
	in->strs[k][n] = '\0';
	if (len)
		*len = n;
	return in->strs[k];
}

int sink_replay(struct sink *s, FILE *f, const char *what, int *status, int64_t *events)
{
	struct spool_in in = { f, xmalloc(1u << 20), 0, 0, 0, { NULL }, 0, { 0 } };
	/*
	 * The current session's strings: the spool's id to the session's (0: not made yet, while a process
	 * the database had was skipped), and their values.
	 */
	int64_t *ids = NULL;
	char **strs = NULL;
	char *session = NULL;
	size_t nids = 0, i;
	int tag, skipping = 0, skipped = 0, kept = 0, hushed = 0, rc = 0;
	struct value vals[REC_MAX_FIELDS];

	while (!rc && (tag = get_u8(&in)) >= 0) {
		in.nstrs = 0;
		in.bad = 0;
		switch (tag) {
		case SP_TX_BEGIN:
			rc = sink_tx_begin(s);
			break;
		case SP_TX_COMMIT:
			rc = sink_tx_commit(s);
			break;
		case SP_TX_ROLLBACK:
			sink_tx_rollback(s);
			free(session);	/* (the spooling sink starts its string ids again after a rollback) */
			session = NULL;
			skipping = 0;	/* a process rolled back before its end (a reader reading again) */
			break;
		case SP_PROCESS: {
			struct sink_process p;
			memset(&p, 0, sizeof(p));
			p.uuid = get_str(&in, NULL);
			p.source = get_str(&in, NULL);
			p.path = get_str(&in, NULL);
			p.file = get_str(&in, NULL);
			p.program = get_str(&in, NULL);
			p.args_json = get_str(&in, NULL);
			p.hostname = get_str(&in, NULL);
			p.engine = get_str(&in, NULL);
			p.collector = get_str(&in, NULL);
			p.options_json = get_str(&in, NULL);
			p.format_version = get_i64(&in);
			p.origin_ns = get_i64(&in);
			p.pid = get_i64(&in);
			p.ppid = get_i64(&in);
			p.rank = get_i64(&in);
			p.content = get_str(&in, NULL);
			p.session_copy = (int)get_i64(&in);
			if (in.bad)
				break;
			if (!session || strcmp(session, p.uuid ? p.uuid : "")) {	/* another session: other strings */
				for (i = 0; i < nids; i++) {
					free(strs[i]);
					strs[i] = NULL;
					ids[i] = 0;
				}
				free(session);
				session = xstrdup(p.uuid ? p.uuid : "");
			}
			rc = sink_process_begin(s, &p);
			hushed = rc == 1;	/* what the reader said of a process it would have skipped is not said */
			skipped += rc == 1;
			kept += rc == 0;
			if (rc == 1) {	/* the reader would have been told, and skipped it */
				info("%s: session %s, process %lld%s%s is already in the database; skipped", what, p.uuid,
				     (long long)p.pid, p.hostname && *p.hostname ? " of " : "", p.hostname ? p.hostname : "");
				skipping = 1;
				rc = 0;
			}
			break;
		}
		case SP_END: {
			int64_t clean = get_i64(&in), end = get_i64(&in);
			if (!in.bad && !skipping)
				rc = sink_process_end(s, (int)clean, end);
			skipping = 0;
			break;
		}
		case SP_STRING: {
			int64_t id = get_i64(&in);
			size_t len = 0;
			const char *v = get_str(&in, &len);
			if (in.bad)
				break;
			if (id < 0 || id > (int64_t)1 << 40) {
				in.bad = 1;
				break;
			}
			if ((size_t)id >= nids) {
				size_t old = nids;
				nids = (size_t)id + 1 > 2 * nids ? (size_t)id + 1 : 2 * nids;
				ids = xrealloc(ids, nids * sizeof(*ids));
				strs = xrealloc(strs, nids * sizeof(*strs));
				for (i = old; i < nids; i++) {
					ids[i] = 0;
					strs[i] = NULL;
				}
			}
			free(strs[id]);
			strs[id] = xstrndup(v ? v : "", len);
			ids[id] = 0;
			if (!skipping && (ids[id] = sink_string(s, strs[id], len)) < 0)
				rc = -1;
			break;
		}
		case SP_ADD: {
			int t = get_u8(&in), k;
			if (t < 0 || t >= R_COUNT) {
				in.bad = 1;
				break;
			}
			for (k = 0; k < rec_specs[t].nfields; k++) {
				enum field_kind kind = rec_specs[t].fields[k].kind;
				memset(&vals[k], 0, sizeof(vals[k]));
				vals[k].null = get_u8(&in) == 1;
				if (vals[k].null)
					continue;
				if (kind == F_NUM)
					vals[k].d = get_f64(&in);
				else if (kind == F_TEXT)
					vals[k].s = get_str(&in, NULL);
				else
					vals[k].i = get_i64(&in);
				if ((kind == F_STR || kind == F_STRTEXT) && vals[k].i > 0) {
					size_t id = (size_t)vals[k].i;
					/* made now when it was sent while a process was skipped */
					if (id < nids && !ids[id] && strs[id] && !skipping &&
					    (ids[id] = sink_string(s, strs[id], strlen(strs[id]))) < 0)
						rc = -1;
					vals[k].i = id < nids ? ids[id] : 0;
				}
			}
			if (!in.bad && !skipping && !rc && !(rc = sink_add(s, (enum rec_type)t, vals)))
				(*events)++;
			break;
		}
		case SP_SHIFT: {
			int64_t off = get_i64(&in);
			if (!in.bad && !skipping)
				rc = sink_shift_times(s, off);
			break;
		}
		case SP_DROP: {
			int64_t ts = get_i64(&in);
			const char *source = get_str(&in, NULL), *w = get_str(&in, NULL);
			int64_t count = get_i64(&in);
			if (!in.bad && !skipping)
				rc = sink_drop(s, ts, source ? source : "", w ? w : "", count);
			break;
		}
		case SP_WINDOW: {
			int64_t start = get_i64(&in), end = get_i64(&in), cut = get_i64(&in);
			if (!in.bad && !skipping)
				rc = sink_window(s, start, end, cut);
			break;
		}
		case SP_CERR: {
			int64_t ts = get_i64(&in);
			const char *w = get_str(&in, NULL), *reason = get_str(&in, NULL);
			if (!in.bad && !skipping)
				rc = sink_collector_error(s, ts, w, reason ? reason : "");
			break;
		}
		case SP_SKIPPED: {
			const char *file = get_str(&in, NULL), *cat = get_str(&in, NULL), *ph = get_str(&in, NULL);
			int64_t count = get_i64(&in), gpu = get_i64(&in);
			if (!in.bad && !skipping)
				rc = sink_skipped(s, file ? file : "", cat ? cat : "", ph ? ph : "", count, gpu);
			break;
		}
		case SP_IERR: {
			const char *file = get_str(&in, NULL);
			int64_t line = get_i64(&in);
			const char *reason = get_str(&in, NULL), *excerpt = get_str(&in, NULL);
			if (!in.bad && !skipping)
				rc = sink_ingest_error(s, file ? file : "", line, reason ? reason : "", excerpt);
			break;
		}
		case SP_MESSAGE: {
			const char *line = get_str(&in, NULL);
			if (!in.bad && !hushed && line)
				fprintf(stderr, "%s\n", line);
			break;
		}
		case SP_REPAIRED: {
			int64_t w = get_i64(&in), count = get_i64(&in);
			if (!in.bad && !skipping && w >= 0 && w < SINK_REPAIRS)
				rc = sink_repaired(s, (enum sink_repair)w, count);
			break;
		}
		case SP_RANK: {
			int64_t rank = get_i64(&in);
			if (!in.bad && !skipping)
				rc = sink_set_rank(s, rank);
			break;
		}
		default:
			in.bad = 1;
		}
		if (in.bad) {
			rc = error("%s: the reader's spool is damaged (tag %d)", what, tag);
			break;
		}
	}
	/* Every process skipped: the reader would have read nothing, and found nothing wrong. */
	if (!rc && skipped && !kept && *status == EXIT_DATA)
		*status = EXIT_OK;
	if (rc) {
		if (s->in_tx)
			sink_tx_rollback(s);
		*status = EXIT_SYSTEM;
	} else if (s->in_tx) {	/* the reader stopped inside a transaction (it failed): nothing of it stays */
		sink_tx_rollback(s);
		if (*status < EXIT_SYSTEM)
			*status = EXIT_SYSTEM;
	}
	for (i = 0; i < 16; i++)
		free(in.strs[i]);
	for (i = 0; i < nids; i++)
		free(strs[i]);
	free(strs);
	free(session);
	free(in.buf);
	free(ids);
	return rc ? -1 : 0;
}
