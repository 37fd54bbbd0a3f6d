/*
 * gpuprof-ingest: load profiles into session.db.
 */
#include "db.h"
#include "json.h"
#include "jstream.h"
#include "reader.h"
#include "sink.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
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

static void usage(FILE *out)
{
	size_t i;
	fprintf(out,
		"usage: gpuprof-ingest [options] INPUT... -o session.db\n"
		"   or: gpuprof-ingest --reindex -o session.db\n"
		"\n"
		"Load profiles into a session database (created if missing). INPUT is a gpuprof session\n"
		"directory or .ndjson[.gz] file, a PyTorch profiler trace, an Nsight Systems export or a\n"
		"gpuprof database (combined: per-host databases into one); the format is detected from content.\n"
		"INPUT - reads standard input (NDJSON, Kineto JSON or an nsys export, .gz compressed too).\n"
		"\n"
		"  -o, --output DB     the database to write (required)\n"
		"  -f, --format NAME   read every INPUT as NAME instead of detecting it\n"
		"      --session ID    store the inputs into session ID (merge ranks of one run)\n"
		"  -j, --jobs N        read up to N inputs at once (default: the number of cores); the\n"
		"                      database is the same as with -j 1\n"
		"      --reindex       rebuild the column chunks analyses read fast (after the inputs) of\n"
		"                      sessions that lack them: written by an older gpuprof, or whose kernels\n"
		"                      or API calls were changed with sqlite3\n"
		"  -q, --quiet         print only warnings and errors (no progress line either)\n"
		"  -v, --verbose       say how each input is read: its format and how it was told\n"
		"\n"
		"On a terminal, a progress line on stderr says how far reading is; none when stderr is not one.\n"
		"  -h, --help          show this help\n"
		"      --version       show the version\n"
		"\n"
		"Formats:\n");
	for (i = 0; i < NREADERS; i++)
		fprintf(out, "  %-10s %s\n", readers[i]->name, readers[i]->help);
	fprintf(out,
		"\n"
		"Ingesting the same input again changes nothing. Exit status: 0 ok, 2 usage, 3 bad input\n"
		"(all valid records were kept; rejected lines are in table ingest_errors), 4 system error.\n");
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
 * output (PATH.partN.PID: the sink calls it makes and the messages it prints, lib/sink_spool.c) and then says
 * so on a pipe (the input's number and exit status). This process, the one writer, replays the spools
 * into the output in input order as they are done, so that the database and the messages are those of
 * reading the inputs one after another (in one transaction, each input's a savepoint of it: an ingest
 * killed midway leaves the database as it was before it). A reader process reads several inputs: starting one per input
 * costs more than its reading (every new process faults its memory in afresh). Returns the exit status.
 */
struct done {
	int32_t input, status;
};

/* Reader k of jobs: its inputs into their spools, each said done on fd. Never returns. */
static void reader_main(int k, int jobs, int fd, char **inputs, const struct reader **picked, char **spools, int n,
			const struct reader_opts *ro)
{
	int i;
	for (i = k; i < n; i += jobs) {
		struct done d = { i, EXIT_SYSTEM };
		FILE *f;
		if (picked[i] == &gpuprof_reader)
			continue;
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

static int parallel_ingest(struct sink *sink, const char *out, char **inputs, const struct reader **picked, int n,
			   int jobs, const struct reader_opts *ro, int progress)
{
	char **spools = xcalloc((size_t)n, sizeof(*spools));
	int *status_of = xcalloc((size_t)n, sizeof(int)), *done = xcalloc((size_t)n, sizeof(int));
	pid_t *pids = xcalloc((size_t)jobs, sizeof(*pids));
	int fds[2], i, k, status = EXIT_OK, open_end = 1;
	int64_t t0 = now_ns(), events = 0;

	if (jobs > n)
		jobs = n;
	for (i = 0; i < n; i++) {
		struct buf b;
		buf_init(&b);
		buf_addf(&b, "%s.part%d.%ld", out, i, (long)getpid());	/* (two ingests may share an output) */
		spools[i] = xstrdup(b.s);
		buf_release(&b);
	}
	if (pipe(fds)) {
		error("cannot start the readers: %s", strerror(errno));
		status = EXIT_SYSTEM;
		jobs = 0;
	}
	fflush(NULL);
	for (k = 0; k < jobs; k++) {
		if ((pids[k] = fork()) < 0) {
			error("cannot start a reader: %s", strerror(errno));
			status = EXIT_SYSTEM;
			break;
		}
		if (pids[k] == 0) {
			close(fds[0]);
			reader_main(k, jobs, fds[1], inputs, picked, spools, n, ro);
		}
	}
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
				if (got < 0 && errno == EINTR)
					continue;
				if (got != (ssize_t)sizeof(d) || d.input < 0 || d.input >= n) {
					open_end = 0;	/* every reader is gone */
					break;
				}
				done[d.input] = 1;
				status_of[d.input] = d.status;
			}
			if (!done[i]) {
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
	/* What was read stays, as reading one input after another would have kept it. */
	if (sink_batch_active(sink) && sink_batch_commit(sink))
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
	for (i = 0; i < n; i++) {
		unlink(spools[i]);
		free(spools[i]);
	}
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
	if ((fd = mkstemp(stdin_copy)) < 0) {
		error("%s: cannot create: %s", stdin_copy, strerror(errno));
		*stdin_copy = 0;
		return NULL;
	}
	stdin_owner = getpid();
	atexit(stdin_remove);
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
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
	return stdin_copy;
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "session", required_argument, NULL, 'S' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "reindex", no_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL, *format = NULL;
	struct reader_opts ro = { NULL };
	const struct reader **picked;	/* the reader of each input */
	struct sink *sink;
	sqlite3 *db;
	int c, i, status = EXIT_OK, reindex = 0, quiet = 0, verbose = 0, combined = 0;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	char *end;
	int64_t t0 = now_ns();

	util_init(argv[0]);
	while ((c = getopt_long(argc, argv, ":o:f:j:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'f': format = optarg; break;
		case 'S': ro.session = optarg; break;
		case 'R': reindex = 1; break;
		case 'q': util_set_quiet(1); quiet = 1; break;
		case 'v': verbose = 1; break;
		case 'j':
			jobs = strtol(optarg, &end, 10);
			if (*end || end == optarg || jobs < 1 || jobs > 1024) {
				error("-j needs a number of jobs from 1 to 1024, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("gpuprof-ingest %s\n", GPUPROF_VERSION); return EXIT_OK;
		default: return usage_bad_option(c, argv);
		}
	}
	if (argc == 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!out || (optind == argc && !reindex))
		return usage_error(!out ? "no output database: give -o session.db" : "no input given");
	for (i = optind; i < argc; i++)
		if (!strcmp(argv[i], "-") && !(argv[i] = (char *)stdin_spool()))
			return EXIT_SYSTEM;
	/* Every input's reader first (each file sniffed once), so that an unknown one changes nothing. */
	picked = xcalloc((size_t)(argc - optind) + 1, sizeof(*picked));
	for (i = optind; i < argc; i++)
		if (!(picked[i - optind] = pick_reader(argv[i], format, &c))) {
			free(picked);
			return c;
		} else if (verbose) {
			info("%s: read as %s, %s (%s)", argv[i], picked[i - optind]->name, picked[i - optind]->help,
			     format ? "as --format says" : "told by its content");
		}
	if (!(db = db_open(out, DB_WRITE))) {
		free(picked);
		return db_refused() ? EXIT_DATA : EXIT_SYSTEM;	/* not ours, or a newer schema */
	}
	if (!(sink = sink_open(db))) {
		free(picked);
		db_close(db);
		return EXIT_SYSTEM;
	}
	for (i = optind; i < argc; i++)
		combined |= picked[i - optind] == &gpuprof_reader;
	if (jobs > 1 && argc - optind > 1) {
		/* On a terminal, one progress line instead of a line per input. */
		int progress = !quiet && isatty(STDERR_FILENO);
		if (progress)
			util_set_quiet(1);
		status = parallel_ingest(sink, out, argv + optind, picked, argc - optind, (int)jobs, &ro, progress);
		if (progress)
			util_set_quiet(0);
	} else {
		struct progress p;
		int progress = !quiet && argc > optind && isatty(STDERR_FILENO) &&
			       !progress_start(&p, sink, argv + optind, argc - optind, t0);
		for (i = optind; i < argc && status != EXIT_SYSTEM; i++) {
			int rc;
			if (progress)
				__atomic_store_n(&p.current, i - optind, __ATOMIC_RELAXED);
			rc = picked[i - optind]->ingest(sink, argv[i], &ro);
			if (rc > status)
				status = rc;
		}
		if (progress)
			progress_stop(&p);
	}
	if (reindex && status != EXIT_SYSTEM) {
		int64_t n;
		if (sink_reindex(sink, &n))
			status = EXIT_SYSTEM;
		else
			info("%s: rebuilt the column chunks of %lld session%s", out, (long long)n, n == 1 ? "" : "s");
	} else if (status != EXIT_SYSTEM && combined) {
		int64_t n;	/* the chunks of the sessions combined into, made once */
		if (sink_reindex(sink, &n))
			status = EXIT_SYSTEM;
	}
	free(picked);
	sink_free(sink);
	if (*stdin_copy && status != EXIT_SYSTEM && stdin_rename(db))
		status = EXIT_SYSTEM;
	db_close(db);
	/* After a failure the messages above say what happened; "done" would say it went well. */
	if (status == EXIT_OK)
		info("%s: done in %.2f s", out, (now_ns() - t0) / 1e9);
	return status;
}
