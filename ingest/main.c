/*
 * gpuprof-ingest: load profiles into session.db.
 */
#include "db.h"
#include "json.h"
#include "jstream.h"
#include "options.h"
#include "reader.h"
#include "sink.h"
#include "stop.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

static const struct reader *readers[] = {
	&ndjson_reader,
	&kineto_reader,
	&gpuprof_reader,	/* before nsys: both are SQLite files */
	&nsys_reader,
};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

static struct opt options[32];	/* the command line (main) */

static void usage(FILE *out)
{
	size_t i;
	options_usage(out, options, 22);
	for (i = 0; i < NREADERS; i++)
		fprintf(out, "  %-10s %s\n", readers[i]->name, readers[i]->help);
	fprintf(out,
		"\n"
		"Ingesting the same input again changes nothing. Exit status: 0 ok, 2 usage, 3 bad input\n"
		"(all valid records were kept; rejected lines are in table ingest_errors), 4 system error;\n"
		"129, 130, 143: stopped by SIGHUP, SIGINT, SIGTERM, which roll back what was being written\n"
		"and remove the run's temporary files (and the database, when the run made it) first; a\n"
		"second signal stops it at once. A run that fails stores nothing into a database it made,\n"
		"and leaves none. After SIGKILL, copy the database with its journal (DB-journal) or --check\n"
		"it first.\n");
}

static int take_help(const struct opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	usage(stdout);
	return OPTIONS_DONE;
}

static int take_quiet(const struct opt *opt, const char *arg)
{
	(void)arg;
	*(int *)opt->value = 1;
	util_set_quiet(1);
	return 0;
}

static int take_jobs(const struct opt *opt, const char *arg)
{
	char *end;
	long *jobs = opt->value;
	*jobs = strtol(arg, &end, 10);
	if (*end || end == arg || *jobs < 1 || *jobs > 1024) {
		error("-j needs a number of jobs from 1 to 1024, not '%s'", arg);
		return -1;
	}
	return 0;
}

/* The reader whose claims name member `key` (with string value `value`, or NULL when not a string). */
static const struct reader *claimed_by(const char *key, const char *value)
{
	size_t i;
	const struct json_claim *c;
	for (i = 0; i < NREADERS; i++)
		for (c = readers[i]->claims; c && c->key; c++)
			if (!strcmp(c->key, key) && (!c->value || (value && !strcmp(c->value, value))))
				return readers[i];
	return NULL;
}

/*
 * Tell a JSON document by its structure: walk the members of the top-level object (or of the first
 * element of a top-level array), skipping their values unread, until one that a reader claims. However
 * long the preamble before it (tools add their own metadata objects ahead of a trace's keys), memory stays
 * bounded. NULL when the input is not such a document or nothing claims it; `seen` then lists the first
 * member names, for the message.
 */
static const struct reader *sniff_json(const char *path, struct buf *seen)
{
	const struct reader *r = NULL;
	struct jstream in;
	struct json_doc d;
	struct buf key, member, val;
	int c, nseen = 0;

	if (jstream_open(&in, path))
		return NULL;
	json_doc_init(&d);
	buf_init(&key);
	buf_init(&member);
	buf_init(&val);
	c = jstream_next(&in);
	if (c == '[')
		c = jstream_next(&in);
	if (c != '{')
		goto out;
	while (!r && jstream_peek(&in) == '"' && !jstream_value(&in, &key) && jstream_next(&in) == ':') {
		int is_str = jstream_peek(&in) == '"';
		const char *name, *value = NULL;
		if (json_parse(&d, key.s, key.len) || json_root(&d)->type != J_STRING)
			break;
		name = json_root(&d)->u.s;
		if (nseen++ < 6)
			buf_addf(seen, "%s\"%s\"", seen->len ? ", " : "", name);
		buf_reset(&member);
		buf_addstr(&member, name);	/* the unescaped name (it may point into key), kept while the value is parsed */
		if (jstream_value(&in, is_str ? &val : NULL))
			break;
		if (is_str && !json_parse(&d, val.s, val.len) && json_root(&d)->type == J_STRING)
			value = json_root(&d)->u.s;
		r = claimed_by(member.s, value);
		if (!r && jstream_next(&in) != ',')
			break;
	}
	if (!r && nseen > 6)
		buf_addf(seen, " and %d more", nseen - 6);
out:
	jstream_close(&in);
	json_doc_release(&d);
	buf_release(&key);
	buf_release(&member);
	buf_release(&val);
	return r;
}

/*
 * The reader for input `path`, by --format, by JSON structure or by detect; NULL with a message and
 * *status the exit code: 4 when the input cannot be read (missing), 2 for an unknown --format, 3 for an
 * input no reader takes (an Nsight Systems report, a directory given to a reader of files).
 */
static const struct reader *pick_reader(const char *path, const char *format, int *status)
{
	const struct reader *r = NULL;
	char head[4097];
	struct buf seen;
	struct stat st;
	size_t i;
	int n = 0, is_dir;

	*status = EXIT_DATA;
	if (format) {
		for (i = 0; i < NREADERS && !r; i++)
			if (!strcmp(readers[i]->name, format))
				r = readers[i];
		if (!r) {
			*status = EXIT_USAGE;
			error("unknown format '%s' (see --help)", format);
			return NULL;
		}
	}
	if (stat(path, &st)) {
		*status = EXIT_SYSTEM;
		error("%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	is_dir = S_ISDIR(st.st_mode);
	if (is_dir && r && r != &ndjson_reader) {
		error("%s: is a directory; the %s format reads a file", path, r->name);
		return NULL;
	}
	if (r)
		return r;
	if (!is_dir && is_nsys_report(path)) {
		error_nsys_report(path);
		return NULL;
	}
	buf_init(&seen);
	if (!is_dir) {
		gzFile f = gzopen(path, "rb");
		if (!f) {
			*status = EXIT_SYSTEM;
			error("%s: cannot open: %s", path, strerror(errno));
			return NULL;
		}
		n = gzread(f, head, sizeof(head) - 1);
		gzclose(f);
		if (n < 0)
			n = 0;
		if ((r = sniff_json(path, &seen))) {
			buf_release(&seen);
			return r;
		}
	}
	head[n] = '\0';
	for (i = 0; i < NREADERS; i++)
		if (readers[i]->detect && readers[i]->detect(path, is_dir, head, (size_t)n)) {
			buf_release(&seen);
			return readers[i];
		}
	if (seen.len)
		error("%s: unrecognised input format: a JSON object with members %s, none of which names a format "
		      "(use --format)", path, seen.s);
	else
		error("%s: unrecognised input format (use --format)", path);
	buf_release(&seen);
	return NULL;
}

/*
 * -j: one decoder per input, one writer. `jobs` reader processes take the inputs but gpuprof databases in
 * turn (reader k: the k-th, the (k + jobs)-th, ...); each reads an input into a spool file beside the
 * output (PATH.partN.PID: the sink calls it makes and the messages it prints, ingest/sink_spool.c) and then says
 * so on a pipe (the input's number and exit status). This process, the one writer, replays the spools
 * into the output in input order as they are done, so that the database and the messages are those of
 * reading the inputs one after another (in one transaction, each input's a savepoint of it: an ingest
 * killed midway leaves the database as it was before it). A reader process reads several inputs: starting one per input
 * costs more than its reading (every new process faults its memory in afresh). Returns the exit status.
 */
struct done {
	int32_t input, status;
};

/*
 * Reader k of jobs: its inputs into their spools, each said done on fd. Never returns. A signal, or the
 * writer's death, ends it at once with every spool it made removed (stop.h).
 */
static void reader_main(int k, int jobs, int fd, char **inputs, const struct reader **picked, char **spools, int n,
			const struct reader_opts *ro, pid_t parent)
{
	int i, slot;
	stop_reader(parent);
	slot = stop_arm(spools + k, 0, jobs);
	for (i = k; i < n; i += jobs) {
		struct done d = { i, EXIT_SYSTEM };
		FILE *f;
		if (picked[i] == &gpuprof_reader)
			continue;
		stop_arm_count(slot, (i - k) / jobs + 1);	/* before it exists */
		if (!(f = fopen(spools[i], "wb"))) {
			error("%s: cannot write: %s", spools[i], strerror(errno));
		} else {
			struct sink *s = sink_spool_open(f);
			d.status = picked[i]->ingest(s, inputs[i], ro);
			sink_free(s);
			if (fclose(f)) {
				error("%s: write error", spools[i]);
				d.status = EXIT_SYSTEM;
			}
		}
		fflush(NULL);
		if (write(fd, &d, sizeof(d)) != (ssize_t)sizeof(d))
			_exit(EXIT_SYSTEM);
	}
	_exit(EXIT_OK);
}

/*
 * (*kept: how many of the inputs, from the first, are in the database for good when a stop signal ended
 * the run: the last commit's.)
 */
static int parallel_ingest(struct sink *sink, const char *out, char **inputs, const struct reader **picked, int n,
			   int jobs, const struct reader_opts *ro, int progress, int *kept)
{
	char **spools = xcalloc((size_t)n, sizeof(*spools));
	int *status_of = xcalloc((size_t)n, sizeof(int)), *done = xcalloc((size_t)n, sizeof(int));
	pid_t *pids = xcalloc((size_t)jobs, sizeof(*pids));
	int fds[2], i, k, status = EXIT_OK, open_end = 1, slot;
	int64_t t0 = now_ns(), events = 0, commits = sink_commits(sink);

	if (jobs > n)
		jobs = n;
	for (i = 0; i < n; i++) {
		struct buf b;
		buf_init(&b);
		buf_addf(&b, "%s.part%d.%ld", out, i, (long)getpid());	/* (two ingests may share an output) */
		spools[i] = xstrdup(b.s);
		buf_release(&b);
	}
	slot = stop_arm(spools, n, 1);	/* what a second signal removes (the readers remove theirs) */
	if (pipe(fds)) {
		error("cannot start the readers: %s", strerror(errno));
		status = EXIT_SYSTEM;
		jobs = 0;
	}
	fflush(NULL);
	/* (A stop signal waits until a new reader knows it is one: stop_reader.) */
	stop_hold(1);
	for (k = 0; k < jobs && !util_stop_signal(); k++) {
		if ((pids[k] = fork()) < 0) {
			error("cannot start a reader: %s", strerror(errno));
			status = EXIT_SYSTEM;
			break;
		}
		if (pids[k] == 0) {
			close(fds[0]);
			reader_main(k, jobs, fds[1], inputs, picked, spools, n, ro, getppid());
		}
	}
	stop_hold(0);
	if (util_stop_signal())
		status = EXIT_SYSTEM;
	if (jobs)
		close(fds[1]);
	/*
	 * The inputs' transactions are savepoints of one (sink_batch_begin): each input is still whole or
	 * absent, and the disk is synced once instead of once per input. A gpuprof database is combined
	 * outside it (ATTACH cannot happen inside a transaction).
	 */
	if (status != EXIT_SYSTEM && sink_batch_begin(sink))
		status = EXIT_SYSTEM;
	for (i = 0; i < n && status != EXIT_SYSTEM; i++) {
		int rc = EXIT_OK;
		int64_t ev = 0;
		if (picked[i] == &gpuprof_reader) {
			if (sink_batch_commit(sink))
				rc = EXIT_SYSTEM;
			else if ((rc = picked[i]->ingest(sink, inputs[i], ro)) != EXIT_SYSTEM && sink_batch_begin(sink))
				rc = EXIT_SYSTEM;
		} else {
			FILE *f;
			/* Wait until input i is read (the readers say so in any order). */
			while (!done[i] && open_end) {
				struct done d;
				ssize_t got = read(fds[0], &d, sizeof(d));
				if (got < 0 && errno == EINTR && !util_stop_signal())
					continue;
				if (util_stop_signal())
					break;
				if (got != (ssize_t)sizeof(d) || d.input < 0 || d.input >= n) {
					open_end = 0;	/* every reader is gone */
					break;
				}
				done[d.input] = 1;
				status_of[d.input] = d.status;
			}
			if (!done[i] && util_stop_signal()) {
				rc = EXIT_SYSTEM;
			} else if (!done[i]) {
				int ws = 0;
				pid_t pid = pids[i % jobs];	/* reader i % jobs had it (reader_main) */
				while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
					;
				pids[i % jobs] = 0;
				if (pid > 0 && WIFSIGNALED(ws))
					error("%s: its reader ended by signal %d before it was read", inputs[i], WTERMSIG(ws));
				else
					error("%s: its reader ended before it was read", inputs[i]);
				rc = EXIT_SYSTEM;
			} else if (!(f = fopen(spools[i], "rb"))) {
				error("%s: cannot read: %s", spools[i], strerror(errno));
				rc = EXIT_SYSTEM;
			} else {
				/* What the reader wrote before it failed is replayed too: a failed transaction rolls back. */
				rc = status_of[i];
				if (sink_replay(sink, f, inputs[i], &rc, &ev))
					rc = EXIT_SYSTEM;
				fclose(f);
			}
			unlink(spools[i]);
		}
		if (rc > status)
			status = rc;
		if (sink_commits(sink) > commits) {	/* (before a gpuprof database, and its own) */
			commits = sink_commits(sink);
			*kept = i + 1;
		}
		events += ev;
		if (progress) {
			double sec = (now_ns() - t0) / 1e9, rate = sec > 0 ? events / sec : 0;
			struct buf line;
			buf_init(&line);
			if (rate >= 1e6)
				buf_addf(&line, "%s: %d/%d inputs, %.2f M events/s", util_progname(), i + 1, n, rate / 1e6);
			else
				buf_addf(&line, "%s: %d/%d inputs, %.0f events/s", util_progname(), i + 1, n, rate);
			util_progress(line.s);	/* (a warning printed meanwhile takes it away first) */
			buf_release(&line);
		}
	}
	/*
	 * What was read stays, as reading one input after another would have kept it; nothing of it when a
	 * stop signal came. i inputs were replayed into the batch.
	 */
	if (sink_batch_active(sink) && util_stop_signal())
		sink_batch_rollback(sink);
	else if (sink_batch_active(sink) && sink_batch_commit(sink))
		status = EXIT_SYSTEM;
	if (sink_commits(sink) > commits)
		*kept = i;
	if (util_stop_signal())
		status = EXIT_SYSTEM;
	if (progress)
		util_progress(NULL);
	if (jobs)
		close(fds[0]);	/* a reader still going (stopped early) ends at its next write */
	for (k = 0; k < jobs; k++) {
		int ws;
		if (pids[k] <= 0)
			continue;
		if (status == EXIT_SYSTEM)
			kill(pids[k], SIGTERM);
		while (waitpid(pids[k], &ws, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(ws) && status != EXIT_SYSTEM) {
			error("a reader ended by signal %d", WTERMSIG(ws));
			status = EXIT_SYSTEM;
		}
	}
	for (i = 0; i < n; i++)
		unlink(spools[i]);
	stop_disarm(slot);
	for (i = 0; i < n; i++)
		free(spools[i]);
	free(spools);
	free(status_of);
	free(done);
	free(pids);
	return status;
}

/*
 * The progress line of inputs read one after another, on a terminal: a thread that every half second
 * shows the records written so far, their rate, how far into the current file reading is (its
 * descriptor's offset, from /proc; a file SQLite reads shows none) and, for several, the inputs done.
 */
struct progress {
	struct sink *sink;
	char **inputs;
	int n;
	int current;		/* the input being read (atomic) */
	int stop;		/* set under lock to end the thread */
	int64_t t0;		/* when ingest began (monotonic ns) */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
};

/* How far into the file `path` this process has read (its descriptor's offset), or -1 when not open. */
static long long input_offset(const char *path)
{
	char want[PATH_MAX], link[300], got[PATH_MAX], line[128];
	long long pos = -1;
	struct dirent *e;
	DIR *d;
	if (!realpath(path, want) || !(d = opendir("/proc/self/fd")))
		return -1;
	while (pos < 0 && (e = readdir(d))) {
		ssize_t n;
		FILE *f;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		if ((n = readlink(link, got, sizeof(got) - 1)) <= 0)
			continue;
		got[n] = '\0';
		if (strcmp(got, want))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fdinfo/%s", e->d_name);
		if (!(f = fopen(link, "r")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "pos: %lld", &pos) == 1)
				break;
		fclose(f);
	}
	closedir(d);
	return pos > 0 ? pos : -1;
}

/* "1.2 GB", "340 MB", "12 kB": n bytes in about three digits. */
static void human_bytes(char *out, size_t size, double n)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;
	while (n >= 1000 && u < 4) {
		n /= 1000;
		u++;
	}
	snprintf(out, size, n < 10 && u ? "%.1f %s" : "%.0f %s", n, units[u]);
}

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec ts;
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		int i = __atomic_load_n(&p->current, __ATOMIC_RELAXED);
		double sec = (now_ns() - p->t0) / 1e9, rows = (double)sink_rows(p->sink), rate = sec > 0 ? rows / sec : 0;
		long long pos;
		struct stat st;
		struct buf b;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 500000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&p->wake, &p->lock, &ts) != ETIMEDOUT || p->stop)
			continue;
		buf_init(&b);
		buf_addf(&b, "%s: %s: ", util_progname(), p->inputs[i]);
		if (rows >= 1e6)
			buf_addf(&b, "%.2f M events, %.2f M/s", rows / 1e6, rate / 1e6);
		else
			buf_addf(&b, "%.0f events, %.0f/s", rows, rate);
		if ((pos = input_offset(p->inputs[i])) > 0 && !stat(p->inputs[i], &st) && st.st_size > 0) {
			char h[32], t[32];
			human_bytes(h, sizeof(h), (double)pos);
			human_bytes(t, sizeof(t), (double)st.st_size);
			buf_addf(&b, ", %s of %s read", h, t);
		}
		if (p->n > 1)
			buf_addf(&b, ", %d/%d inputs done", i, p->n);
		util_progress(b.s);
		buf_release(&b);
	}
	pthread_mutex_unlock(&p->lock);
	util_progress(NULL);
	return NULL;
}

/* Start p's thread (0), or -1 when it cannot be (no progress line then: not worth a message). */
static int progress_start(struct progress *p, struct sink *sink, char **inputs, int n, int64_t t0)
{
	memset(p, 0, sizeof(*p));
	p->sink = sink;
	p->inputs = inputs;
	p->n = n;
	p->t0 = t0;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	if (pthread_create(&p->thread, NULL, progress_main, p)) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->wake);
		return -1;
	}
	return 0;
}

static void progress_stop(struct progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
}

static char stdin_copy[4096];	/* the temporary file `-` was read into, "" when none */
static char *const stdin_paths[] = { stdin_copy };	/* (for stop_arm) */
static pid_t stdin_owner;	/* the process that made it and removes it at exit (not a reader process) */

/* All n bytes of buf to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static void stdin_remove(void)
{
	if (*stdin_copy && getpid() == stdin_owner)
		unlink(stdin_copy);
}

/*
 * Input `-`: standard input copied whole into a temporary file ($TMPDIR, else /tmp) that the readers read as
 * any other input (the format is told from its content; .gz compressed too), removed at exit. Its path, or
 * NULL with a message.
 */
static const char *stdin_spool(void)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char buf[65536];
	ssize_t n;
	int fd;
	if (*stdin_copy) {
		error("-: standard input can be read once");
		return NULL;
	}
	snprintf(stdin_copy, sizeof(stdin_copy), "%s/gpuprof-ingest-stdin.XXXXXX", dir);
	stop_arm(stdin_paths, 1, 1);	/* a second signal removes it too */
	if ((fd = mkstemp(stdin_copy)) < 0) {
		error("%s: cannot create: %s", stdin_copy, strerror(errno));
		*stdin_copy = 0;
		return NULL;
	}
	stdin_owner = getpid();
	atexit(stdin_remove);
	while (!util_stop_signal() && (n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;	/* (a stop signal ends the loop) */
		if (n < 0 || write_all(fd, buf, (size_t)n)) {
			error("-: cannot copy standard input to %s: %s", stdin_copy, strerror(errno));
			close(fd);
			return NULL;
		}
	}
	if (close(fd)) {
		error("%s: write error: %s", stdin_copy, strerror(errno));
		return NULL;
	}
	return util_stop_signal() ? NULL : stdin_copy;
}

/* What the database says of the input read from standard input: "-", not the temporary file. 0, or -1. */
static int stdin_rename(sqlite3 *db)
{
	static const char *const sql[] = {
		"UPDATE sessions SET path = '-' WHERE path = ?1", "UPDATE processes SET file = '-' WHERE file = ?1",
		"UPDATE ingest_errors SET file = '-' WHERE file = ?1", "UPDATE ingest_skipped SET file = '-' WHERE file = ?1",
	};
	size_t i;
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *st = db_prepare(db, sql[i]);
		int rc;
		if (!st)
			return -1;
		sqlite3_bind_text(st, 1, stdin_copy, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return error("%s", sqlite3_errmsg(db));
	}
	return 0;
}

/* path + suffix, caller frees. */
static char *path_with(const char *path, const char *suffix)
{
	struct buf b;
	buf_init(&b);
	buf_addf(&b, "%s%s", path, suffix);
	return b.s;
}

/*
 * The database this run created, when it holds nothing (the run failed, or was stopped, before it stored
 * a session or a rejected line): removed with its journal, so that a run that failed into a new path
 * leaves no file. One that holds a session (bad input whose valid records were stored, exit 3) or a
 * recorded rejection is kept, and so is one that cannot be read to tell. The run's own connection is closed.
 */
static void remove_unstored(const char *out)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int none = 0;
	/*
	 * Under an exclusive lock, taken at once or not at all: another ingest that made the same path at
	 * the same moment and is writing it keeps it.
	 */
	if (sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK) {
		if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM ingest_errors)",
				       -1, &st, NULL) == SQLITE_OK)
			none = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == 0;
		else
			none = sqlite3_errcode(db) == SQLITE_ERROR;	/* no such tables: nothing was made */
		sqlite3_finalize(st);
	}
	if (none) {
		char *journal = path_with(out, "-journal");
		unlink(out);
		unlink(journal);
		free(journal);
	}
	sqlite3_close(db);	/* (rolls back and unlocks; the files are gone already) */
}

/*
 * The one line of a run that a stop signal ended: what the database keeps (kept of n inputs, from the
 * first, were committed before it). Returns the exit status, 128 + the signal.
 */
static int say_stopped(const char *out, int kept, int n)
{
	util_progress(NULL);
	if (kept <= 0)
		fprintf(stderr, "%s: interrupted: %s left as it was\n", util_progname(), out);
	else if (kept < n)
		fprintf(stderr, "%s: interrupted: %s keeps the first %d of %d inputs, nothing of the others\n",
			util_progname(), out, kept, n);
	else if (n == 1)
		fprintf(stderr, "%s: interrupted: %s was written already: it keeps its input\n", util_progname(), out);
	else
		fprintf(stderr, "%s: interrupted: %s was written already: it keeps all %d inputs\n", util_progname(),
			out, n);
	return 128 + util_stop_signal();
}

/*
 * gpuprof-ingest --check DB: whether DB is whole (PRAGMA integrity_check) and a gpuprof session database
 * (application id, schema version, tables), in one line: on stdout when it is (0), else as an error: 3
 * damaged or not ours, 4 when it cannot be read or another connection is writing it. A hot journal that
 * an interrupted or killed ingest left is rolled back first, as any program that opens the database does;
 * one that was never hot (nothing of its transaction reached the database) is removed; the line says so.
 * Then the file alone is whole: a copy of it is the database.
 */
static const char *const gpuprof_tables[] = { "sessions", "processes", "strings", "kernels", "ingest_errors" };

static int check_fail(sqlite3 *db, const char *path, const char *what)
{
	int rc = sqlite3_extended_errcode(db);
	if (db_system_error(rc)) {
		error("%s: cannot check: %s (%s)", path, sqlite3_errmsg(db), what);
		return EXIT_SYSTEM;
	}
	if ((rc & 0xff) == SQLITE_NOTADB)
		error("%s: not a gpuprof database: %s", path, sqlite3_errmsg(db));
	else
		error("%s: damaged: %s", path, sqlite3_errmsg(db));
	return EXIT_DATA;
}

static int check_db(const char *path)
{
	char *journal = path_with(path, "-journal");
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct stat stt;
	struct buf problems;
	int64_t version = 0, app = 0, tables = 0, sessions = 0;
	int had_journal, stale = 0, status = EXIT_OK, rows = 0, rc;
	size_t i;

	buf_init(&problems);
	if (stat(path, &stt)) {
		error("%s: cannot read: %s", path, strerror(errno));
		status = EXIT_SYSTEM;
		goto out;
	}
	if (S_ISDIR(stt.st_mode)) {
		error("%s: is a directory, not a session database", path);
		status = EXIT_DATA;
		goto out;
	}
	had_journal = !stat(journal, &stt) && stt.st_size > 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		error("%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		status = EXIT_SYSTEM;
		goto out;
	}
	sqlite3_busy_timeout(db, 5000);
	/* The first read rolls back a hot journal (one whose ingest is gone), making the file whole alone. */
	if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		if (sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK) {
			error("%s: an interrupted ingest left %s, which this user cannot roll back: copy both files, or "
			      "open the database once as its owner", path, journal);
			status = EXIT_SYSTEM;
		} else {
			status = check_fail(db, path, "read");
		}
		goto out;
	}
	if (!stat(journal, &stt) && stt.st_size > 0) {
		/*
		 * Still there: a writer holds it, or it was never hot (killed before anything was written to the
		 * database, the journal's header not yet synced). With the write lock ours, it is the latter.
		 */
		sqlite3_busy_timeout(db, 1000);
		if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
			if ((sqlite3_errcode(db) & 0xff) == SQLITE_BUSY) {
				error("%s: in use: another connection is writing it (%s); check it again when that has ended",
				      path, journal);
				status = EXIT_SYSTEM;
			} else {
				status = check_fail(db, path, "lock");
			}
			goto out;
		}
		stale = !unlink(journal);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_busy_timeout(db, 5000);
	}
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
		status = check_fail(db, path, "integrity check");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *row = (const char *)sqlite3_column_text(st, 0);
		if (row && !strcmp(row, "ok"))
			continue;
		if (!rows++)
			buf_addstr(&problems, row ? row : "?");
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		status = check_fail(db, path, "integrity check");
		goto out;
	}
	if (rows) {
		error("%s: damaged: %s%s", path, problems.s, rows > 1 ? " (and more: sqlite3 DB 'pragma integrity_check')" : "");
		status = EXIT_DATA;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM pragma_user_version), "
			       "(SELECT application_id FROM pragma_application_id), "
			       "(SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?1, ?2, ?3, ?4, ?5))",
			       -1, &st, NULL) != SQLITE_OK) {
		status = check_fail(db, path, "schema");
		goto out;
	}
	for (i = 0; i < sizeof(gpuprof_tables) / sizeof(gpuprof_tables[0]); i++)
		sqlite3_bind_text(st, (int)i + 1, gpuprof_tables[i], -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		status = check_fail(db, path, "schema");
		goto out;
	}
	version = sqlite3_column_int64(st, 0);
	app = sqlite3_column_int64(st, 1);
	tables = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	st = NULL;
	if (version && app != DB_APPLICATION_ID) {
		error("%s: not a gpuprof database (application_id %lld)", path, (long long)app);
		status = EXIT_DATA;
		goto out;
	}
	if (tables < (int64_t)(sizeof(gpuprof_tables) / sizeof(gpuprof_tables[0]))) {
		error("%s: not a gpuprof database (%s)", path,
		      tables ? "tables of a session database are missing" : "no session database tables");
		status = EXIT_DATA;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sessions", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		status = check_fail(db, path, "sessions");
		goto out;
	}
	sessions = sqlite3_column_int64(st, 0);
	printf("%s: ok: a gpuprof database of schema version %lld%s, %lld session%s%s\n", path, (long long)version,
	       version > DB_SCHEMA_VERSION ? " (newer than this gpuprof's)" : !version ? " (from before versions were kept)" : "",
	       (long long)sessions, sessions == 1 ? "" : "s",
	       stale ? "; the journal an interrupted ingest left held nothing to roll back and was removed" :
	       had_journal ? "; the journal an interrupted ingest left was rolled back first" : "");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	buf_release(&problems);
	free(journal);
	return status;
}

/* What main read from the command line. */
struct run {
	const char *out, *format;
	char **inputs;		/* argv's */
	int n;
	struct reader_opts ro;
	long jobs;
	int reindex, quiet, verbose;
};

/*
 * Ingest r's inputs into r->out. A run that fails, or that a stop signal ends, leaves no database where
 * there was none; one that a stop signal ends says one line and returns 128 + the signal. The exit status.
 */
static int ingest(struct run *r)
{
	const struct reader **picked;	/* the reader of each input */
	struct sink *sink;
	sqlite3 *db;
	struct stat st;
	char *db_paths[2];
	int c, i, status = EXIT_OK, combined = 0, created, slot, kept = 0;
	int64_t t0 = now_ns();

	for (i = 0; i < r->n && !util_stop_signal(); i++)
		if (!strcmp(r->inputs[i], "-") && !(r->inputs[i] = (char *)stdin_spool()))
			return util_stop_signal() ? say_stopped(r->out, 0, r->n) : EXIT_SYSTEM;
	/* Every input's reader first (each file sniffed once), so that an unknown one changes nothing. */
	picked = xcalloc((size_t)r->n + 1, sizeof(*picked));
	for (i = 0; i < r->n && !util_stop_signal(); i++)
		if (!(picked[i] = pick_reader(r->inputs[i], r->format, &c))) {
			free(picked);
			return util_stop_signal() ? say_stopped(r->out, 0, r->n) : c;	/* (its message was not said) */
		} else if (r->verbose) {
			info("%s: read as %s, %s (%s)", r->inputs[i], picked[i]->name, picked[i]->help,
			     r->format ? "as --format says" : "told by its content");
		}
	if (util_stop_signal()) {
		free(picked);
		return say_stopped(r->out, 0, r->n);
	}
	/* A database this run makes is removed again when the run stores nothing (a second signal: at once). */
	created = stat(r->out, &st) && errno == ENOENT;
	db_paths[0] = (char *)r->out;
	db_paths[1] = path_with(r->out, "-journal");
	slot = created ? stop_arm(db_paths, 2, 1) : -1;
	if (!(db = db_open(r->out, DB_WRITE))) {
		status = db_refused() ? EXIT_DATA : EXIT_SYSTEM;	/* not ours, or a newer schema */
		goto out;
	}
	if (!(sink = sink_open(db))) {
		db_close(db);
		status = EXIT_SYSTEM;
		goto out;
	}
	for (i = 0; i < r->n; i++)
		combined |= picked[i] == &gpuprof_reader;
	if (r->jobs > 1 && r->n > 1) {
		/* On a terminal, one progress line instead of a line per input. */
		int progress = !r->quiet && isatty(STDERR_FILENO);
		if (progress)
			util_set_quiet(1);
		status = parallel_ingest(sink, r->out, r->inputs, picked, r->n, (int)r->jobs, &r->ro, progress, &kept);
		if (progress)
			util_set_quiet(0);
	} else {
		struct progress p;
		int progress = !r->quiet && r->n && isatty(STDERR_FILENO) && !progress_start(&p, sink, r->inputs, r->n, t0);
		int64_t commits = sink_commits(sink);
		for (i = 0; i < r->n && status != EXIT_SYSTEM && !util_stop_signal(); i++) {
			int rc;
			if (progress)
				__atomic_store_n(&p.current, i, __ATOMIC_RELAXED);
			rc = picked[i]->ingest(sink, r->inputs[i], &r->ro);
			if (rc > status)
				status = rc;
			if (sink_commits(sink) > commits) {	/* (stored, even when a signal came during its COMMIT) */
				commits = sink_commits(sink);
				kept = i + 1;
			}
		}
		if (progress)
			progress_stop(&p);
	}
	if (util_stop_signal()) {
		/* (nothing more: the reindex below, the renaming of `-`) */
	} else if (r->reindex && status != EXIT_SYSTEM) {
		int64_t n;
		if (sink_reindex(sink, &n))
			status = EXIT_SYSTEM;
		else
			info("%s: rebuilt the column chunks of %lld session%s", r->out, (long long)n, n == 1 ? "" : "s");
	} else if (status != EXIT_SYSTEM && combined) {
		int64_t n;	/* the chunks of the sessions combined into, made once */
		if (sink_reindex(sink, &n))
			status = EXIT_SYSTEM;
	}
	sink_free(sink);
	/* (Stopped, what was committed before the signal says `-` too.) */
	if (*stdin_copy && (status != EXIT_SYSTEM || util_stop_signal()) && stdin_rename(db) && !util_stop_signal())
		status = EXIT_SYSTEM;
	db_close(db);
out:
	free(picked);
	if (created && (status != EXIT_OK || util_stop_signal()))
		remove_unstored(r->out);
	stop_disarm(slot);
	free(db_paths[1]);
	if (util_stop_signal())
		return say_stopped(r->out, kept, r->n);
	/* After a failure the messages above say what happened; "done" would say it went well. */
	if (status == EXIT_OK)
		info("%s: done in %.2f s", r->out, (now_ns() - t0) / 1e9);
	return status;
}

int main(int argc, char **argv)
{
	struct run r;
	int i, n, check = 0, status = EXIT_OK;

	memset(&r, 0, sizeof(r));
	r.jobs = sysconf(_SC_NPROCESSORS_ONLN);
	util_init(argv[0]);
	{
		const struct opt rows[] = {
			OPT_TEXT_LINE("usage: gpuprof-ingest [options] INPUT... -o session.db"),
			OPT_TEXT_LINE("   or: gpuprof-ingest --reindex -o session.db"),
			OPT_TEXT_LINE("   or: gpuprof-ingest --check DB..."),
			OPT_TEXT_LINE(""),
			OPT_TEXT_LINE("Load profiles into a session database (created if missing). INPUT is a gpuprof session"),
			OPT_TEXT_LINE("directory or .ndjson[.gz] file, a PyTorch profiler trace, an Nsight Systems export or a"),
			OPT_TEXT_LINE("gpuprof database (combined: per-host databases into one); the format is detected from content."),
			OPT_TEXT_LINE("INPUT - reads standard input (NDJSON, Kineto JSON or an nsys export, .gz compressed too)."),
			OPT_TEXT_LINE(""),
			OPT_STR('o', "output", &r.out, "DB", "the database to write (required)"),
			OPT_STR('f', "format", &r.format, "NAME", "read every INPUT as NAME instead of detecting it"),
			OPT_STR(0, "session", &r.ro.session, "ID", "store the inputs into session ID (merge ranks of one run)"),
			OPT_CB('j', "jobs", &r.jobs, "N", "read up to N inputs at once (default: the number of cores); the\n"
			       "database is the same as with -j 1", take_jobs),
			OPT_BOOL(0, "reindex", &r.reindex, "rebuild the column chunks analyses read fast (after the inputs) of\n"
				 "sessions that lack them: written by an older gpuprof, or whose kernels\n"
				 "or API calls were changed with sqlite3"),
			{ OPT_FLAG, 0, "check", &check, "DB", "whether DB is whole (integrity check) and a gpuprof database, in one\n"
				 "line; a journal an interrupted ingest left is rolled back first, so\n"
				 "that the file alone is then a good copy (exit 0 ok, 3 damaged or not\n"
				 "a gpuprof database, 4 unreadable or being written)", OPT_NOVALUE, NULL, 1 },
			OPT_CB('q', "quiet", &r.quiet, NULL, "print only warnings and errors (no progress line either)",
			       take_quiet),
			OPT_BOOL('v', "verbose", &r.verbose, "say how each input is read: its format and how it was told"),
			OPT_TEXT_LINE(""),
			OPT_TEXT_LINE("On a terminal, a progress line on stderr says how far reading is; none when stderr is not one."),
			OPT_CB('h', "help", NULL, NULL, "show this help", take_help),
			OPT_VERSION_ROW,
			OPT_TEXT_LINE(""),
			OPT_TEXT_LINE("Formats:"),
			OPT_END_ROW
		};
		_Static_assert(sizeof(rows) <= sizeof(options), "options[] holds the rows");
		memcpy(options, rows, sizeof(rows));
	}
	if ((n = options_parse(argc, argv, options)) < 0)
		return n == OPTIONS_DONE ? EXIT_OK : EXIT_USAGE;
	if (argc == 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (check) {
		if (r.out || r.format || r.ro.session || r.reindex)
			return usage_error("--check takes only databases: gpuprof-ingest --check DB...");
		if (!n)
			return usage_error("no database given: gpuprof-ingest --check DB");
		for (i = 0; i < n; i++) {
			int rc = check_db(argv[i]);
			if (rc > status)
				status = rc;
		}
		return status;
	}
	if (!r.out || (!n && !r.reindex))
		return usage_error(!r.out ? "no output database: give -o session.db" : "no input given");
	if (stop_install())
		return EXIT_SYSTEM;
	r.inputs = argv;
	r.n = n;
	return ingest(&r);
}
