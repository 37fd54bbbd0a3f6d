/*
 * nsys: Nsight Systems SQLite exports (.sqlite, from `nsys export --type sqlite` or `nsys profile
 * --export sqlite`).
 *
 * The export is opened read-only as a second SQLite connection. Exporter versions from 2022 to 2026
 * rename, add and drop tables and columns, so nothing is assumed: tables are looked up in sqlite_master,
 * columns with pragma_table_info, and each SELECT is built from what exists (a missing optional column
 * reads as NULL, a missing table as no records). The table `nsys_sources` says which nsys columns fill which
 * record field. Each table is read with one SELECT of its columns as stored; string ids are looked up in
 * StringIds and mapped to session.db string ids through a cache keyed by the nsys id.
 *
 * Rows: every value read from every table goes through one check (nsys_get_int, nsys_get_text,
 * nsys_get_string: nsys_check.c) before it is used: an integer column must hold an INTEGER (or a REAL with an integral value, what INTEGER affinity
 * stores), never TEXT, a BLOB or a fraction; a text column TEXT; a required column (col.req, NVTX start)
 * no NULL; an end no earlier than its start; a string id a row of StringIds. A row that fails is rejected:
 * "FILE: TABLE rowid N: what" on stderr (the first MAX_PRINTED), a row of ingest_errors (line = the rowid,
 * excerpt = "column = value"), the exit EXIT_DATA, and every other row kept.
 *
 * Unread data: rows of GPU-activity tables no source reads (gpu_tables: CUDA events, graph traces, page
 * faults, GPU metrics...) are counted per table in a warning and in ingest_skipped (category = the table);
 * an export with GPU rows of which no kernel, copy or memset is read exits EXIT_DATA, whatever else was
 * kept, and one with no GPU rows at all (a CPU-only capture) gets a note.
 *
 * Processes: rows carry globalPid or globalTid; pid = (g >> 24) & 0xFFFFFF, thread = g & 0xFFFFFF. Each
 * pid becomes one sink process of the file's session. A process column holding text or a blob makes up no
 * process (nsys_load_pids leaves it out): each cursor reads such a row with the first process, and the
 * row's check rejects it. With a few processes, each SELECT is run once per process with the pid bound (a scan is cheaper than a sort that carries the joined strings); with more than
 * SCAN_PIDS, each is ordered by pid and the cursors are drained one process at a time.
 *
 * Times: nsys stores ns since the session start, and TARGET_INFO_SESSION_START_TIME.utcEpochNs is that
 * start on the Unix epoch, so absolute = utcEpochNs + t. An export without that table (hand-made
 * fixtures) keeps its session-relative times: origin 0.
 *
 * A file that is no SQLite database, is cut off, lacks a required column or has a time origin that is no
 * integer is refused whole (EXIT_DATA, nothing written).
 */
#include "nsys.h"
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_SPAN (1 << 20)		/* bytes hashed at each end of the file for the session id */

/* Begin process pid: 1 when it is already in the database (skip it), 0 to go on, -1 on failure. */
static int begin_process(struct nsys *n, int64_t pid, int first)
{
	struct sink_process p;
	char *program = NULL;
	size_t i;
	int rc;

	if (n->program_st) {
		const char *name;
		sqlite3_bind_int64(n->program_st, 1, pid);
		if (sqlite3_step(n->program_st) == SQLITE_ROW) {
			struct row r = nsys_row_at("PROCESSES", n->program_st, 1);
			if ((rc = nsys_get_text(n, &r, 0, "name", 4, 1, &name)) < 0)
				return -1;
			program = name ? xstrdup(name) : NULL;
		}
		sqlite3_reset(n->program_st);
	}
	memset(&p, 0, sizeof(p));
	p.uuid = n->opts->session ? n->opts->session : n->uuid;
	p.source = "nsys";
	p.path = n->path;
	p.file = n->path;
	p.program = program;
	p.hostname = n->hostname;
	p.collector = n->collector;
	p.format_version = n->format_version;
	p.origin_ns = n->origin;
	p.pid = pid;
	p.rank = -1;
	rc = sink_process_begin(n->sink, &p);
	free(program);
	if (rc == 1)
		info("%s: session %s, process %lld is already in the database; skipped", n->path, p.uuid,
		     (long long)pid);
	if (rc)
		return rc;
	if (nsys_record_pending(n))
		return -1;
	n->seen.n = n->declared.n = 0;
	for (i = 0; i < n->ngpus; i++)
		if (n->gpus[i].pid == pid || (n->gpus[i].pid < 0 && first))
			if (nsys_add_device(n, n->gpus[i].id, &n->gpus[i]))
				return -1;
	return 0;
}

static const char no_gpu_read[] = "no GPU activity was read (no kernels, copies or memsets)";

/*
 * 1 when the export has GPU rows (not read, or kernel, copy and memset rows rejected) but no kernel, copy
 * or memset was read.
 */
static int no_gpu(const struct nsys *n)
{
	return !n->totals[R_KERNEL] && !n->totals[R_MEMCPY] && !n->totals[R_MEMSET] &&
	       (n->unread_rows || n->gpu_rejected);
}

/* Read every process from the open cursors inside the caller's transaction. Returns an exit status. */
static int read_processes(struct nsys *n)
{
	size_t k, i;
	int status;
	for (k = 0; k < n->npids; k++) {
		int64_t pid = n->pids[k];
		int rc = begin_process(n, pid, k == 0), skip = rc == 1, t;
		if (rc < 0)
			return EXIT_SYSTEM;
		for (i = 0; i < NSOURCES; i++)
			if ((status = nsys_drain(n, &n->cursors[i], pid, skip)))
				return status;
		if ((status = nsys_drain_nvtx(n, pid, skip)))
			return status;
		if (skip)
			continue;
		for (i = 0; i < n->seen.n; i++)
			if (!nsys_idset_has(&n->declared, n->seen.v[i]) && nsys_add_device(n, n->seen.v[i], NULL))
				return EXIT_SYSTEM;
		for (i = 0; i < n->nunread; i++)
			if (n->unread[i].pid == pid && sink_skipped(n->sink, n->path, n->unread[i].table, "",
								    n->unread[i].count, n->unread[i].count))
				return EXIT_SYSTEM;
		for (t = 0; t < R_COUNT; t++)
			n->totals[t] += sink_count(n->sink, t);
		n->ingested++;
		/* Said in the session, with the last process, when nothing GPU was read. */
		if (k == n->npids - 1 && no_gpu(n) && sink_ingest_error(n->sink, n->path, 0, no_gpu_read, NULL))
			return EXIT_SYSTEM;
		/*
		 * The session ends at the last event, like it starts at the first: ANALYSIS_DETAILS.duration
		 * would be the capture's end, far from the events in a windowed (derived) export.
		 */
		if (sink_process_end(n->sink, 1, 0))
			return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hash bytes [at, end) of fd into *h; -1 with a message on a read error. */
static int hash_range(struct nsys *n, int fd, unsigned char *buf, uint64_t at, uint64_t end, uint64_t *h)
{
	while (at < end) {
		size_t want = end - at < HASH_SPAN ? (size_t)(end - at) : HASH_SPAN;
		ssize_t got = pread(fd, buf, want, (off_t)at);
		if (got < 0)
			return error("%s: read error: %s", n->path, strerror(errno));
		if (!got)
			break;
		*h = fnv1a(*h, buf, (size_t)got);
		at += (uint64_t)got;
	}
	return 0;
}

/*
 * Check the file is a whole SQLite database (the header's page count against the file size catches a
 * cut-off copy before SQLite reads garbage) and derive the session id from its size and a hash of its
 * first and last MiB. Returns an exit status with a message.
 */
static int check_file(struct nsys *n)
{
	unsigned char head[100], *chunk = NULL;
	struct stat st;
	uint64_t h = FNV1A_INIT, page, pages, size;
	ssize_t got;
	int fd = open(n->path, O_RDONLY), status = EXIT_OK;

	if (fd < 0)
		return error("%s: cannot open: %s", n->path, strerror(errno)), EXIT_SYSTEM;
	if (fstat(fd, &st)) {
		error("%s: %s", n->path, strerror(errno));
		status = EXIT_SYSTEM;
		goto out;
	}
	size = (uint64_t)st.st_size;
	got = pread(fd, head, sizeof(head), 0);
	if (got < 0) {
		error("%s: read error: %s", n->path, strerror(errno));
		status = EXIT_SYSTEM;
		goto out;
	}
	if (got < (ssize_t)sizeof(head) || memcmp(head, "SQLite format 3", 16)) {
		error("%s: header: not an SQLite database (an Nsight Systems report becomes one with "
		      "'nsys export --type sqlite')", n->path);
		status = EXIT_DATA;
		goto out;
	}
	page = (uint64_t)head[16] << 8 | head[17];
	if (page == 1)
		page = 65536;
	pages = be32(head + 28);
	/* The header's page count is valid when its change counter equals version-valid-for. */
	if (pages && be32(head + 24) == be32(head + 92) && size < page * pages) {
		error("%s: header: the file is cut off (%llu of %llu bytes)", n->path, (unsigned long long)size,
		      (unsigned long long)(page * pages));
		status = EXIT_DATA;
		goto out;
	}
	chunk = xmalloc(size < HASH_SPAN ? (size_t)size + 1 : HASH_SPAN);	/* (a small export: no 1 MiB buffer) */
	if (hash_range(n, fd, chunk, 0, size < HASH_SPAN ? size : HASH_SPAN, &h) ||
	    (size > HASH_SPAN &&
	     hash_range(n, fd, chunk, size - HASH_SPAN > HASH_SPAN ? size - HASH_SPAN : HASH_SPAN, size, &h))) {
		status = EXIT_SYSTEM;
		goto out;
	}
	snprintf(n->uuid, sizeof(n->uuid), "nsys:%016llx-%llx", (unsigned long long)h, (unsigned long long)size);
out:
	free(chunk);
	close(fd);
	return status;
}

/*
 * 1 when db has a table that Nsight Systems exports write (string table, target info, CUPTI activity,
 * NVTX), 0 when none, -1 when db cannot be read (its message in sqlite3_errmsg).
 */
static int has_nsys_tables(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND (name IN "
				    "('StringIds', 'TARGET_INFO_GPU', 'TARGET_INFO_SESSION_START_TIME', 'NVTX_EVENTS') "
				    "OR name LIKE 'CUPTI\\_ACTIVITY\\_KIND\\_%' ESCAPE '\\')", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Open the export and prepare everything that reads it, before anything is written. */
static int prepare(struct nsys *n)
{
	struct names cols = { NULL, 0, 0 };
	char program_sql[] = "SELECT t.name, t.rowid FROM PROCESSES AS t WHERE t.pid = ? LIMIT 1";
	size_t i;
	int status, yes;

	if (sqlite3_open_v2(n->path, &n->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return nsys_src_error(n, "open");
	db_stop_on_signal(n->db);	/* (a long sort of the export's rows ends at a stop signal too) */
	/* One read transaction for the whole read: one snapshot, and no lock taken and file checked per query */
	if (sqlite3_exec(n->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return nsys_src_error(n, "open");
	if ((status = nsys_load_names(n, NULL, &n->tables)))
		return status;
	/* (--format nsys on another SQLite file would read as an empty session at time 0) */
	if (!has_nsys_tables(n->db))
		return error("%s: not an Nsight Systems export: an SQLite file without its tables (StringIds, "
			     "TARGET_INFO_GPU, CUPTI_ACTIVITY_KIND_*, ...)", n->path), EXIT_DATA;
	n->has_strings = nsys_has_table(n, "StringIds");
	if (n->has_strings &&
	    !(n->str_st = nsys_src_prepare(n, "SELECT value FROM StringIds WHERE id = ?", "StringIds", &status)))
		return status;
	if ((status = nsys_load_meta(n)) || (status = nsys_load_gpus(n)) || (status = nsys_load_pids(n)) ||
	    (status = nsys_count_unread(n)))
		return status;
	n->per_pid = n->npids > 1 && n->npids <= SCAN_PIDS;
	for (i = 0; i < NSOURCES; i++)
		if ((status = nsys_open_cursor(n, &n->cursors[i], &nsys_sources[i])))
			return status;
	if (nsys_has_table(n, "NVTX_EVENTS")) {
		if ((status = nsys_load_names(n, "NVTX_EVENTS", &cols)))
			return status;
		status = nsys_load_domains(n, &cols);
		if (!status)
			status = nsys_open_nvtx(n, &cols);
		nsys_names_release(&cols);
		if (status)
			return status;
	}
	if ((yes = nsys_has_column(n, "PROCESSES", "name")) < 0 || (yes && (yes = nsys_has_column(n, "PROCESSES", "pid")) < 0))
		return n->err;
	if (yes)
		n->program_st = nsys_prepare_rowid(n, program_sql, "PROCESSES", &status);
	return status;
}

static void release(struct nsys *n)
{
	size_t i;
	for (i = 0; i < NSOURCES; i++)
		sqlite3_finalize(n->cursors[i].st);
	sqlite3_finalize(n->nvtx.st);
	sqlite3_finalize(n->program_st);
	sqlite3_finalize(n->str_st);
	sqlite3_close(n->db);
	nsys_names_release(&n->tables);
	intmap_release(&n->strs);
	for (i = 0; i < n->ngpus; i++) {
		free(n->gpus[i].name);
		free(n->gpus[i].uuid);
	}
	free(n->gpus);
	for (i = 0; i < n->ndomains; i++)
		free(n->domains[i].name);
	free(n->domains);
	for (i = 0; i < n->npending; i++) {
		free(n->pending[i].reason);
		free(n->pending[i].excerpt);
	}
	free(n->pending);
	free(n->unread);
	free(n->pids);
	free(n->seen.v);
	free(n->declared.v);
	free(n->stack);
	free(n->hostname);
	free(n->collector);
}

/* Warn about the GPU-activity rows not read: "FILE: N rows of GPU activity not read: TABLE count, ...". */
static void warn_unread(const struct nsys *n)
{
	struct buf b;
	size_t i, k;
	buf_init(&b);
	for (i = 0; i < n->nunread; i++) {
		int64_t count = 0;
		for (k = 0; k < i && strcmp(n->unread[k].table, n->unread[i].table); k++)
			;
		if (k < i)
			continue;	/* listed with its first process */
		for (k = i; k < n->nunread; k++)
			if (!strcmp(n->unread[k].table, n->unread[i].table))
				count += n->unread[k].count;
		buf_addf(&b, "%s%s %lld", b.len ? ", " : "", n->unread[i].table, (long long)count);
	}
	warning("%s: %lld row(s) of GPU activity in tables gpuprof does not read: %s (counted in table ingest_skipped)",
		n->path, (long long)n->unread_rows, b.s);
	buf_release(&b);
}

static int nsys_ingest(struct sink *s, const char *path, const struct reader_opts *o)
{
	struct nsys n;
	int status, committed = 0;

	memset(&n, 0, sizeof(n));
	n.sink = s;
	n.opts = o;
	n.path = path;
	if (nsys_nvtx_fields(&n.fx))
		return error("internal: an NVTX field is missing from records.c"), EXIT_SYSTEM;
	if ((status = check_file(&n)) || (status = prepare(&n)))
		goto out;
	if (sink_tx_begin(s)) {
		status = EXIT_SYSTEM;
		goto out;
	}
	status = read_processes(&n);
	if (status == EXIT_OK && sink_tx_commit(s))
		status = EXIT_SYSTEM;
	else if (status != EXIT_OK)
		sink_tx_rollback(s);
	else
		committed = 1;
	if (status != EXIT_OK)
		goto out;
	if (!n.ingested)
		goto out;	/* every process was already in the database */
	info("%s: %lld kernels, %lld memcpys, %lld memsets, %lld syncs, %lld API calls, %lld ranges, "
	     "%lld markers, %lld memory events, %lld overheads in %zu process(es)", path,
	     (long long)n.totals[R_KERNEL], (long long)n.totals[R_MEMCPY], (long long)n.totals[R_MEMSET],
	     (long long)n.totals[R_SYNC], (long long)n.totals[R_API], (long long)n.totals[R_RANGE],
	     (long long)n.totals[R_MARKER], (long long)n.totals[R_MEMORY], (long long)n.totals[R_OVERHEAD],
	     n.ingested);
	if (n.unread_rows)
		warn_unread(&n);
	if (n.rejected) {
		error("%s: %lld row(s) rejected; all are recorded in table ingest_errors, every other row was kept",
		      path, (long long)n.rejected);
		status = EXIT_DATA;
	}
	/* Like a Kineto trace: an export with GPU rows of which none was read is bad input; one with none a note. */
	if (!n.totals[R_KERNEL] && !n.totals[R_MEMCPY] && !n.totals[R_MEMSET]) {
		if (no_gpu(&n)) {
			error("%s: %s", path, no_gpu_read);
			status = EXIT_DATA;
		} else {
			info("%s: the export holds no GPU activity", path);
		}
	}
out:
	if (status != EXIT_OK && !committed)
		error("%s: nothing was ingested", path);
	release(&n);
	return status;
}

static int nsys_detect(const char *path, int is_dir, const char *head, size_t n)
{
	sqlite3 *db = NULL;
	int found = -1;
	if (is_dir || n < 16 || memcmp(head, "SQLite format 3", 16))
		return 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
		found = has_nsys_tables(db);
	sqlite3_close(db);
	/* A damaged .sqlite file is claimed too, so that ingest says what is wrong with it. */
	return found > 0 || (found < 0 && ends_with(path, ".sqlite"));
}

const struct reader nsys_reader = {
	"nsys", "Nsight Systems SQLite export (.sqlite)", NULL, nsys_detect, nsys_ingest
};
