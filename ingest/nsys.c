/*
 * nsys: Nsight Systems SQLite exports (.sqlite, from `nsys export --type sqlite` or `nsys profile
 * --export sqlite`).
 *
 * The export is opened read-only as a second SQLite connection. Exporter versions from 2022 to 2026
 * rename, add and drop tables and columns, so nothing is assumed: tables are looked up in sqlite_master,
 * columns with pragma_table_info, and each SELECT is built from what exists (a missing optional column
 * reads as NULL, a missing table as no records). The table `sources` says which nsys columns fill which
 * record field. Each table is read with one SELECT of its columns as stored; string ids are looked up in
 * StringIds and mapped to session.db string ids through a cache keyed by the nsys id.
 *
 * Rows: every value read from every table goes through one check (get_int, get_text, get_string) before it
 * is used: an integer column must hold an INTEGER (or a REAL with an integral value, what INTEGER affinity
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
 * pid becomes one sink process of the file's session. Rows whose process column holds text or a blob are
 * rejected up front (reject_bad_pids) and read by no other SELECT, so no process is made up from them.
 * With a few, each SELECT is run once per process
 * with the pid bound (a scan is cheaper than a sort that carries the joined strings); with more than
 * SCAN_PIDS, each is ordered by pid and the cursors are drained one process at a time.
 *
 * Times: nsys stores ns since the session start, and TARGET_INFO_SESSION_START_TIME.utcEpochNs is that
 * start on the Unix epoch, so absolute = utcEpochNs + t. An export without that table (hand-made
 * fixtures) keeps its session-relative times: origin 0.
 *
 * A file that is no SQLite database, is cut off, lacks a required column or has a time origin that is no
 * integer is refused whole (EXIT_DATA, nothing written).
 */
#include "reader.h"
#include "intmap.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_COLS 28
#define MAX_RES (3 + 2 * MAX_COLS)	/* result columns of a source's SELECT */
#define MAX_PRINTED 20			/* rejected rows printed one by one; then only a count */
#define HASH_SPAN (1 << 20)		/* bytes hashed at each end of the file for the session id */
#define SCAN_PIDS 8			/* up to this many processes: one scan per process, else one sort */
#define CUPTI_INVALID 0xFFFFFFFFLL	/* CUPTI's "no stream / no event" value */
#define NVTX_MARK 34
#define NVTX_PUSHPOP 59
#define NVTX_STARTEND 60
#define NVTX_DOMAIN_CREATE 75

/* How an nsys value becomes a record value. */
enum xf {
	X_TIME,		/* origin + value */
	X_END,		/* X_TIME, and not before the col before it (the start) */
	X_INT,		/* the value; dflt when the column is absent or NULL (a req column: never NULL) */
	X_INTN,		/* the value, or NULL */
	X_OPT,		/* the value; NULL, negative or CUPTI_INVALID store NULL */
	X_NONE0,	/* the value; NULL or CUPTI_INVALID store 0 (ids where 0 means none) */
	X_CONST,	/* dflt, whatever the file holds */
	X_STR,		/* a StringIds id, stored as our string id; NULL when absent */
	X_MANGLED,	/* X_STR, but NULL when it is the same id as the column before it (the name) */
	X_INTERN,	/* a StringIds id only added to `strings` (no field): kernel short names */
	X_API,		/* X_STR for CUDA API names, less nsys's version suffix (cudaMemcpy_v3020) */
	X_TEXT,		/* an inline TEXT column, stored as our string id */
	X_TID,		/* globalTid: the thread id in its low 24 bits; dflt when absent (NULL if negative) */
	X_MEMKIND,	/* nsys memory kind to CUPTI's numbering */
	X_OVHKIND,	/* nsys CUPTI overhead type to CUPTI's overhead kind */
	X_SYNCKIND,	/* CUPTI synchronization type: 1..4 kept, others 0 */
	X_MEMOP		/* memoryOperationType 0 allocation, 1 free to op 1, 2; others reject the row */
};

struct col {
	const char *field;	/* record field (wire name), NULL for X_INTERN */
	const char *names;	/* candidate nsys columns "a|b": the first non-NULL existing one; NULL: none */
	enum xf xf;
	int64_t dflt;
	int req;		/* 1: the table must have one of the candidates, and a row a non-NULL value */
};

/* One nsys table and the record type it fills. Record fields no col names are stored as NULL. */
struct source {
	const char *table;
	enum rec_type type;
	const char *pid_col;	/* the column holding the process: globalPid or globalTid */
	int ncols;
	struct col cols[MAX_COLS];
};

static const struct source sources[] = {
	{ "CUPTI_ACTIVITY_KIND_KERNEL", R_KERNEL, "globalPid", 24, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_INT, 0, 1 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_INT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "name", "demangledName|shortName", X_STR, 0, 1 }, { "mangled", "mangledName", X_MANGLED, 0, 0 },
		{ "grid_x", "gridX", X_INT, 0, 0 }, { "grid_y", "gridY", X_INT, 0, 0 },
		{ "grid_z", "gridZ", X_INT, 0, 0 }, { "block_x", "blockX", X_INT, 0, 0 },
		{ "block_y", "blockY", X_INT, 0, 0 }, { "block_z", "blockZ", X_INT, 0, 0 },
		{ "cluster_x", "clusterX", X_INT, 0, 0 }, { "cluster_y", "clusterY", X_INT, 0, 0 },
		{ "cluster_z", "clusterZ", X_INT, 0, 0 }, { "registers", "registersPerThread", X_INT, 0, 0 },
		{ "static_smem", "staticSharedMemory", X_INT, 0, 0 },
		{ "dynamic_smem", "dynamicSharedMemory", X_INT, 0, 0 },
		{ "local_mem", "localMemoryPerThread", X_INT, 0, 0 }, { "graph_id", "graphId", X_INT, 0, 0 },
		{ "graph_node", "graphNodeId", X_INT, 0, 0 }, { NULL, "shortName", X_INTERN, 0, 0 } } },
	{ "CUPTI_ACTIVITY_KIND_MEMCPY", R_MEMCPY, "globalPid", 13, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_INT, 0, 1 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_INT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "kind", "copyKind", X_INT, 0, 1 }, { "src_kind", "srcKind", X_MEMKIND, 0, 0 },
		{ "dst_kind", "dstKind", X_MEMKIND, 0, 0 }, { "bytes", "bytes", X_INT, 0, 1 },
		{ "src_device", "srcDeviceId", X_OPT, 0, 0 }, { "dst_device", "dstDeviceId", X_OPT, 0, 0 },
		{ "async", NULL, X_INTN, 0, 0 } } },	/* not in the export: NULL */
	{ "CUPTI_ACTIVITY_KIND_MEMSET", R_MEMSET, "globalPid", 9, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_INT, 0, 1 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_INT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "bytes", "bytes", X_INT, 0, 1 }, { "value", "value", X_INT, 0, 0 },
		{ "mem_kind", "memKind", X_MEMKIND, 0, 0 } } },
	{ "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", R_SYNC, "globalPid", 9, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "device", "deviceId", X_OPT, 0, 0 }, { "context", "contextId", X_INT, 0, 0 },
		{ "stream", "streamId", X_OPT, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "kind", "syncType", X_SYNCKIND, 0, 1 }, { "event", "eventId", X_NONE0, 0, 0 },
		{ "thread", NULL, X_INT, 0, 0 } } },	/* not in the export: 0 = unknown */
	{ "CUDA_GPU_MEMORY_USAGE_EVENTS", R_MEMORY, "globalPid", 13, {
		{ "ts", "start", X_TIME, 0, 1 }, { "device", "deviceId", X_OPT, 0, 0 },
		{ "context", "contextId", X_INT, 0, 0 }, { "stream", "streamId", X_OPT, 0, 0 },
		{ "correlation", "correlationId", X_INT, 0, 0 }, { "op", "memoryOperationType", X_MEMOP, 0, 1 },
		{ "mem_kind", "memKind", X_MEMKIND, 0, 0 }, { "address", "address", X_INT, 0, 0 },
		{ "bytes", "bytes", X_INT, 0, 1 }, { "pc", "pc", X_INT, 0, 0 }, { "site", "name", X_TEXT, 0, 0 },
		{ "thread", "globalTid", X_TID, 0, 0 }, { "async", NULL, X_INTN, 0, 0 } } },
	{ "CUPTI_ACTIVITY_KIND_RUNTIME", R_API, "globalTid", 7, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "thread", "globalTid", X_TID, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "name", "nameId", X_API, 0, 0 }, { "cbid", "cbid", X_INT, 0, 0 },
		{ "domain", NULL, X_CONST, 1, 0 } } },	/* 1: runtime */
	{ "CUPTI_ACTIVITY_KIND_DRIVER", R_API, "globalTid", 7, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "thread", "globalTid", X_TID, 0, 0 }, { "correlation", "correlationId", X_INT, 0, 0 },
		{ "name", "nameId", X_API, 0, 0 }, { "cbid", "cbid", X_INT, 0, 0 },
		{ "domain", NULL, X_CONST, 2, 0 } } },	/* 2: driver */
	/* CUPTI's own overheads, each on the thread it happened on (nsys keeps no other object) */
	{ "CUPTI_ACTIVITY_KIND_OVERHEAD", R_OVERHEAD, "globalTid", 6, {
		{ "start", "start", X_TIME, 0, 1 }, { "end", "end", X_END, 0, 1 },
		{ "kind", "overheadType", X_OVHKIND, 0, 1 }, { "object_kind", NULL, X_CONST, 2, 0 },
		{ "thread", "globalTid", X_TID, -1, 0 }, { "correlation", "correlationId", X_NONE0, 0, 0 } } },
};
#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

/* TARGET_INFO_GPU columns for the numeric device fields, with the factor or divisor to our units. */
static const struct {
	const char *field, *column;
	int64_t mul, div;
} gpu_cols[] = {
	{ "cc_major", "computeMajor", 1, 1 }, { "cc_minor", "computeMinor", 1, 1 }, { "sms", "smCount", 1, 1 },
	{ "memory_bytes", "totalMemory", 1, 1 },
	{ "core_clock_khz", "clockRate", 1, 1000 },		/* Hz */
	{ "mem_bandwidth_kbs", "memoryBandwidth", 1, 1000 },	/* bytes/s */
	{ "max_threads_per_sm", "maxWarpsPerSm", 0, 1 },	/* times threadsPerWarp (0 here) */
	{ "max_regs_per_sm", "maxRegistersPerSm", 1, 1 }, { "max_smem_per_sm", "maxShmemPerSm", 1, 1 },
};
#define NGPU_NUM (sizeof(gpu_cols) / sizeof(gpu_cols[0]))

/* Column names of one table of the export. */
struct names {
	char **v;
	size_t n, alloc;
};

/* One GPU to declare: from TARGET_INFO_GPU, placed in a process by the CUDA context tables. */
struct gpu {
	int64_t pid;		/* -1: the first process */
	int64_t id;		/* CUDA device id as the process's records use it */
	int64_t hw;		/* TARGET_INFO_GPU.id */
	char *name, *uuid;	/* owned, NULL when unknown */
	int64_t num[NGPU_NUM];
};

/* An NVTX domain named by an eventType 75 record. */
struct domain {
	int64_t pid, id;
	char *name;		/* owned */
};

/*
 * A source table being read. Result columns: 0 the pid, 1 the rowid, 2 the process column as stored,
 * then each existing candidate column of each col.
 */
struct cursor {
	const struct source *src;
	sqlite3_stmt *st;
	int started, has_row;
	int64_t pid;			/* of the current row */
	int at[MAX_COLS];		/* result column of each col's first candidate */
	int ncand[MAX_COLS];		/* how many of its candidates the table has */
	const char *cname[MAX_RES];	/* the export's column name of each result column (not NUL-ended) */
	int clen[MAX_RES];
	int field[MAX_COLS];		/* record field of each col, -1 for X_INTERN */
};

/* A row being validated: where it comes from, for messages and ingest_errors. */
struct row {
	const char *table;
	sqlite3_stmt *st;
	int64_t rowid;			/* 0 when the table has none */
	int has_rowid;
};

/* A rejected row found before any process was begun (GPUs, NVTX domains), recorded by the first one. */
struct pending {
	int64_t rowid;
	char *reason, *excerpt;		/* owned */
};

/* Rows of one GPU-activity table gpuprof does not read, in process pid. */
struct unread {
	const char *table;		/* an entry of n->tables */
	int64_t pid, count;
};

/* The set of device ids of the current process (few: linear search). */
struct idset {
	int64_t *v;
	size_t n, alloc;
};

/* The range and marker fields NVTX events fill, resolved once (nvtx_fields). */
struct nvtx_fields {
	int r_start, r_end, r_thread, r_name, r_domain, r_kind, r_depth, r_id;
	int m_ts, m_thread, m_name, m_domain;
};

static const struct rec_index nvtx_index[] = {
	{ offsetof(struct nvtx_fields, r_start), R_RANGE, "start" },
	{ offsetof(struct nvtx_fields, r_end), R_RANGE, "end" },
	{ offsetof(struct nvtx_fields, r_thread), R_RANGE, "thread" },
	{ offsetof(struct nvtx_fields, r_name), R_RANGE, "name" },
	{ offsetof(struct nvtx_fields, r_domain), R_RANGE, "domain" },
	{ offsetof(struct nvtx_fields, r_kind), R_RANGE, "kind" },
	{ offsetof(struct nvtx_fields, r_depth), R_RANGE, "depth" },
	{ offsetof(struct nvtx_fields, r_id), R_RANGE, "id" },
	{ offsetof(struct nvtx_fields, m_ts), R_MARKER, "ts" },
	{ offsetof(struct nvtx_fields, m_thread), R_MARKER, "thread" },
	{ offsetof(struct nvtx_fields, m_name), R_MARKER, "name" },
	{ offsetof(struct nvtx_fields, m_domain), R_MARKER, "domain" },
};

struct nsys {
	struct sink *sink;
	const struct reader_opts *opts;
	const char *path;
	sqlite3 *db;			/* the export, read-only */
	char uuid[96];
	struct names tables;
	int has_strings;		/* StringIds exists */
	int64_t origin;			/* utcEpochNs, or 0 */
	int64_t format_version;		/* export schema X.Y.Z as X*10000 + Y*100 + Z */
	char *hostname, *collector;
	int memkind[16];		/* nsys memory kind -> CUPTI memory kind */
	int ovhkind[16];		/* nsys CUPTI overhead type -> CUPTI overhead kind */
	struct intmap strs;
	int64_t *pids;
	size_t npids, pids_alloc;
	struct gpu *gpus;
	size_t ngpus, gpus_alloc;
	struct domain *domains;
	size_t ndomains, domains_alloc;
	struct cursor cursors[NSOURCES];
	struct cursor nvtx;
	int per_pid;			/* cursors take the pid as parameter 1 (see SCAN_PIDS) */
	sqlite3_stmt *program_st;	/* SELECT name FROM PROCESSES WHERE pid = ? */
	struct idset seen, declared;	/* devices of the current process */
	int64_t *stack;			/* NVTX push/pop ends, for depths */
	size_t nstack, stack_alloc;
	int64_t stack_tid, stack_domain;
	const char *map_table;		/* TARGET_INFO_CUDA_CONTEXT_INFO or _CUDA_DEVICE, when used */
	const char *map_pid;		/* its process column */
	int err;			/* exit status of the last failure reading the export */
	sqlite3_stmt *str_st;		/* SELECT value FROM StringIds WHERE id = ? */
	int in_process;			/* rejected rows can be recorded now (else they wait in pending) */
	struct pending *pending;
	size_t npending, pending_alloc;
	struct unread *unread;
	size_t nunread, unread_alloc;
	int64_t unread_rows;		/* in all */
	int64_t rejected;		/* rows rejected in all */
	int64_t totals[R_COUNT];
	size_t ingested;		/* processes written (not already in the database) */
	struct value vals[REC_MAX_FIELDS + MAX_COLS];
	int64_t raw[MAX_COLS];
	int raw_null[MAX_COLS];
	struct nvtx_fields fx;		/* where drain_nvtx puts what */
};

static void names_release(struct names *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int names_has(const struct names *l, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && !memcmp(l->v[i], name, len))
			return 1;
	return 0;
}

/* Our string id for nsys id `key` (which may be 0, so keys are stored plus one), or -1 when not cached. */
static int64_t idcache_get(const struct intmap *m, int64_t key)
{
	int64_t v;
	return intmap_get(m, key + 1, &v) ? v : -1;
}

static int idset_has(const struct idset *s, int64_t v)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return 1;
	return 0;
}

static void idset_add(struct idset *s, int64_t v)
{
	if (idset_has(s, v))
		return;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = v;
}

/*
 * A failure of the export connection: print FILE: where: what. Returns EXIT_SYSTEM for resource and I/O
 * failures, EXIT_DATA for everything else (corrupt file, not a database, missing table or column).
 */
static int src_error(struct nsys *n, const char *where)
{
	int code = sqlite3_errcode(n->db) & 0xff;
	error("%s: %s: %s", n->path, where, sqlite3_errmsg(n->db));
	if (code == SQLITE_NOMEM || code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN)
		n->err = EXIT_SYSTEM;
	else
		n->err = EXIT_DATA;
	return n->err;
}

/* Prepare a statement on the export; NULL with a message (and *status set) on failure. */
static sqlite3_stmt *src_prepare(struct nsys *n, const char *sql, const char *where, int *status)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK) {
		*status = src_error(n, where);
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

static int has_table(const struct nsys *n, const char *name)
{
	return names_has(&n->tables, name, strlen(name));
}

/* The row of st whose rowid is result column i (NULL for a table without rowids). */
static struct row row_at(const char *table, sqlite3_stmt *st, int i)
{
	struct row r = { table, st, sqlite3_column_int64(st, i), sqlite3_column_type(st, i) != SQLITE_NULL };
	return r;
}

/* 1 with *x when d is an integral value in int64_t's range (what INTEGER affinity would store), else 0. */
static int integral(double d, int64_t *x)
{
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || (double)(int64_t)d != d)
		return 0;
	*x = (int64_t)d;
	return 1;
}

/*
 * Prepare sql, a SELECT of table alias t that reads t.rowid; for a table without rowids (a view, a
 * WITHOUT ROWID table) every "t.rowid" is read as NULL instead (rowid 0 in messages). NULL with a
 * message and *status set when neither prepares.
 */
static sqlite3_stmt *prepare_rowid(struct nsys *n, char *sql, const char *where, int *status)
{
	sqlite3_stmt *st = NULL;
	char *p;
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) == SQLITE_OK)
		return st;
	sqlite3_finalize(st);
	for (p = sql; (p = strstr(p, "t.rowid")); p += 7)
		memcpy(p, "NULL   ", 7);
	return src_prepare(n, sql, where, status);
}

/* Append "name = value" for result column i of st to b: the excerpt of a rejected row. */
static void describe(struct buf *b, sqlite3_stmt *st, int i, const char *name, int len)
{
	const char *t;
	int tl;
	buf_addf(b, "%.*s = ", len, name);
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		buf_addstr(b, "NULL");
		break;
	case SQLITE_INTEGER:
		buf_addi64(b, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		buf_addf(b, "%.17g", sqlite3_column_double(st, i));
		break;
	case SQLITE_TEXT:
		t = (const char *)sqlite3_column_text(st, i);
		tl = sqlite3_column_bytes(st, i);
		buf_addf(b, "'%.*s'%s", tl > 60 ? 60 : tl, t, tl > 60 ? "..." : "");
		break;
	default:
		buf_addf(b, "a blob of %d bytes", sqlite3_column_bytes(st, i));
	}
}

/* Print (the first MAX_PRINTED of a file) and record one rejected row; -1 on a sink failure. */
static int record(struct nsys *n, int64_t rowid, const char *reason, const char *excerpt)
{
	if (n->rejected < MAX_PRINTED)
		error("%s: %s", n->path, reason);
	else if (n->rejected == MAX_PRINTED)
		error("%s: more rows are rejected; all are recorded in table ingest_errors", n->path);
	n->rejected++;
	return sink_ingest_error(n->sink, n->path, rowid, reason, excerpt);
}

/*
 * Reject the current row of r: print "FILE: TABLE rowid N: reason" (the first MAX_PRINTED rows of the
 * file, then one line that more follow) and record it in ingest_errors with line = the rowid and the value
 * of result column i (the export's column name/len; i < 0: none) as excerpt (record). Before any process
 * is begun it waits in n->pending for the first one that is not in the database already (so a re-ingest
 * says nothing). Returns 1, or -1 on a sink failure.
 */
static int reject(struct nsys *n, const struct row *r, int i, const char *name, int len, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int reject(struct nsys *n, const struct row *r, int i, const char *name, int len, const char *fmt, ...)
{
	struct buf reason, excerpt;
	va_list ap;
	int rc = 0;
	buf_init(&reason);
	buf_init(&excerpt);
	if (r->has_rowid)
		buf_addf(&reason, "%s rowid %lld: ", r->table, (long long)r->rowid);
	else
		buf_addf(&reason, "%s: ", r->table);
	va_start(ap, fmt);
	buf_vaddf(&reason, fmt, ap);
	va_end(ap);
	if (i >= 0)
		describe(&excerpt, r->st, i, name, len);
	if (!n->in_process) {
		struct pending *p;
		ALLOC_GROW(n->pending, n->npending + 1, n->pending_alloc);
		p = &n->pending[n->npending++];
		p->rowid = r->rowid;
		p->reason = reason.s;
		p->excerpt = i >= 0 ? excerpt.s : NULL;
		if (i < 0)
			buf_release(&excerpt);
		return 1;
	}
	rc = record(n, r->rowid, reason.s, i >= 0 ? excerpt.s : NULL);
	buf_release(&reason);
	buf_release(&excerpt);
	return rc ? -1 : 1;
}

/*
 * Result column i of r's row (the export's column name/len) as an integer: 0 with *x (or *isnull set when
 * NULL and nullable), 1 when the row is rejected, -1 on a sink failure. An integer is an INTEGER, or a
 * REAL with an integral value in range (what a column of INTEGER affinity would have stored); a TEXT,
 * BLOB or fractional REAL is none, even when its text reads as a number.
 */
static int get_int(struct nsys *n, const struct row *r, int i, const char *name, int len, int nullable,
		   int64_t *x, int *isnull)
{
	double d;
	*x = 0;
	*isnull = 0;
	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_INTEGER:
		*x = sqlite3_column_int64(r->st, i);
		return 0;
	case SQLITE_NULL:
		*isnull = 1;
		return nullable ? 0 : reject(n, r, i, name, len, "\"%.*s\" is NULL", len, name);
	case SQLITE_FLOAT:
		d = sqlite3_column_double(r->st, i);
		if (integral(d, x))
			return 0;
		return reject(n, r, i, name, len, "\"%.*s\" is %.17g, not an integer", len, name, d);
	case SQLITE_TEXT:
		return reject(n, r, i, name, len, "\"%.*s\" is text, not an integer", len, name);
	default:
		return reject(n, r, i, name, len, "\"%.*s\" is a blob, not an integer", len, name);
	}
}

/* Result column i of r's row as text, like get_int: 0 with *s (NULL when NULL and nullable), 1, or -1. */
static int get_text(struct nsys *n, const struct row *r, int i, const char *name, int len, int nullable,
		    const char **s)
{
	*s = NULL;
	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_TEXT:
		*s = (const char *)sqlite3_column_text(r->st, i);
		return 0;
	case SQLITE_NULL:
		return nullable ? 0 : reject(n, r, i, name, len, "\"%.*s\" is NULL", len, name);
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		return reject(n, r, i, name, len, "\"%.*s\" is a number, not text", len, name);
	default:
		return reject(n, r, i, name, len, "\"%.*s\" is a blob, not text", len, name);
	}
}

/* Fill `out` with the tables of the export (table NULL) or the columns of `table`. Returns an exit status. */
static int load_names(struct nsys *n, const char *table, struct names *out)
{
	sqlite3_stmt *st;
	int rc, status = EXIT_OK;
	st = src_prepare(n, table ? "SELECT name FROM pragma_table_info(?)" :
			 "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", "schema", &status);
	if (!st)
		return status;
	if (table)
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		out->v[out->n++] = xstrdup(s ? s : "");
	}
	if (rc != SQLITE_DONE)
		status = src_error(n, table ? table : "schema");
	sqlite3_finalize(st);
	return status;
}

/*
 * Append to sql the expression for candidate columns "a|b" of alias t: one column, coalesce() of several,
 * or NULL when none exists. Returns how many exist.
 */
static int add_expr(struct buf *sql, const struct names *cols, const char *cands)
{
	const char *p;
	int found = 0, pass;
	for (pass = 0; pass < 2; pass++) {
		int k = 0;
		if (pass == 1 && found > 1)
			buf_addstr(sql, "coalesce(");
		for (p = cands; p && *p;) {
			size_t len = strcspn(p, "|");
			if (names_has(cols, p, len)) {
				if (pass == 0)
					found++;
				else
					buf_addf(sql, "%st.\"%.*s\"", k++ ? ", " : "", (int)len, p);
			}
			p += len;
			if (*p == '|')
				p++;
		}
		if (pass == 1 && found > 1)
			buf_addch(sql, ')');
	}
	if (!found)
		buf_addstr(sql, "NULL");
	return found;
}

/* The pid expression for the process column `col` of alias t (0 when the table has none). */
static void add_pid_expr(struct buf *sql, const struct names *cols, const char *col)
{
	if (col && names_has(cols, col, strlen(col)))
		buf_addf(sql, "coalesce((t.\"%s\" >> 24) & 16777215, 0)", col);
	else
		buf_addstr(sql, "0");
}

/*
 * The condition that the process column `col` of alias t holds no text or blob ("1" when the table has
 * none): rows that fail it are rejected by reject_bad_pids and read by nothing else, so that no process is
 * made up from them.
 */
static void add_pid_ok(struct buf *sql, const struct names *cols, const char *col)
{
	if (col && names_has(cols, col, strlen(col)))
		buf_addf(sql, "typeof(t.\"%s\") NOT IN ('text', 'blob')", col);
	else
		buf_addstr(sql, "1");
}

/* Read a one-row, one-column text query with one bound text value into *out (NULL when no row). */
static int query_text(struct nsys *n, const char *sql, const char *bind, char **out)
{
	sqlite3_stmt *st;
	int rc, status = EXIT_OK;
	*out = NULL;
	if (!(st = src_prepare(n, sql, "metadata", &status)))
		return status;
	if (bind)
		sqlite3_bind_text(st, 1, bind, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*out = xstrdup((const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		status = src_error(n, "metadata");
	sqlite3_finalize(st);
	return status;
}

/* 1 when table `table` of the export has column `col`, 0 when not, -1 on failure (status in n->err). */
static int has_column(struct nsys *n, const char *table, const char *col)
{
	struct names cols = { NULL, 0, 0 };
	int yes;
	if (!has_table(n, table))
		return 0;
	if (load_names(n, table, &cols)) {
		names_release(&cols);
		return -1;
	}
	yes = names_has(&cols, col, strlen(col));
	names_release(&cols);
	return yes;
}

/*
 * The time origin, TARGET_INFO_SESSION_START_TIME.utcEpochNs: every time depends on it, so a value that is
 * no integer refuses the whole export (EXIT_DATA); NULL or no row keeps times session-relative (origin 0).
 */
static int load_origin(struct nsys *n)
{
	sqlite3_stmt *st;
	int status = EXIT_OK, rc;
	if (!(st = src_prepare(n, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1",
			       "TARGET_INFO_SESSION_START_TIME", &status)))
		return status;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		switch (sqlite3_column_type(st, 0)) {
		case SQLITE_INTEGER:
			n->origin = sqlite3_column_int64(st, 0);
			break;
		case SQLITE_NULL:
			break;
		case SQLITE_FLOAT:
			if (integral(sqlite3_column_double(st, 0), &n->origin))
				break;
			/* fall through */
		default:
			error("%s: TARGET_INFO_SESSION_START_TIME: \"utcEpochNs\" is no integer, so no time can be "
			      "placed", n->path);
			status = EXIT_DATA;
		}
	} else if (rc != SQLITE_DONE) {
		status = src_error(n, "TARGET_INFO_SESSION_START_TIME");
	}
	sqlite3_finalize(st);
	return status;
}

/* An nsys enumeration's value name (by its suffix) and the CUPTI value it stands for. */
struct enum_map {
	const char *suffix;
	int cupti;
};

static const struct enum_map mem_kinds[] = {
	{ "_PAGEABLE", 1 }, { "_PINNED", 2 }, { "_DEVICE", 3 }, { "_ARRAY", 4 }, { "_MANAGED", 5 },
	{ "_DEVICE_STATIC", 6 }, { "_MANAGED_STATIC", 7 },
};

static const struct enum_map overhead_kinds[] = {
	{ "_DRIVER_COMPILER", 1 }, { "_CUPTI_BUFFER_FLUSH", 1 << 16 }, { "_CUPTI_INSTRUMENTATION", 2 << 16 },
	{ "_CUPTI_RESOURCE", 3 << 16 }, { "_RUNTIME_TRIGGERED_MODULE_LOADING", 4 << 16 },
	{ "_LAZY_FUNCTION_LOADING", 5 << 16 }, { "_COMMAND_BUFFER_FULL", 6 << 16 },
	{ "_ACTIVITY_BUFFER_REQUEST", 7 << 16 }, { "_UVM_ACTIVITY_INIT", 8 << 16 },
};

/*
 * Fill map[16] (nsys value -> CUPTI value) from the export's table `table` (id, name) when it has one,
 * names matched by suffix and the rest 0; otherwise leave map as the caller set it. Returns an exit status.
 */
static int load_enum(struct nsys *n, const char *table, const struct enum_map *m, size_t nm, int map[16])
{
	struct buf sql;
	sqlite3_stmt *st;
	int status = EXIT_OK, yes, rc;
	if ((yes = has_column(n, table, "name")) <= 0)
		return yes < 0 ? n->err : EXIT_OK;
	buf_init(&sql);
	buf_addf(&sql, "SELECT t.id, t.name, t.rowid FROM \"%s\" AS t", table);
	st = prepare_rowid(n, sql.s, table, &status);
	buf_release(&sql);
	if (!st)
		return status;
	memset(map, 0, 16 * sizeof(*map));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = row_at(table, st, 2);
		const char *name;
		int64_t id;
		int isnull, bad;
		size_t k;
		if (!(bad = get_int(n, &r, 0, "id", 2, 0, &id, &isnull)))
			bad = get_text(n, &r, 1, "name", 4, 0, &name);
		if (bad < 0) {
			status = EXIT_SYSTEM;
			break;
		}
		if (bad || id < 0 || id >= 16)
			continue;	/* rejected, or a value no record can hold: its kind reads as 0 */
		for (k = 0; k < nm; k++)
			if (ends_with(name, m[k].suffix))
				map[id] = m[k].cupti;
	}
	if (rc != SQLITE_DONE && !status)
		status = src_error(n, table);
	sqlite3_finalize(st);
	return status;
}

/*
 * Session metadata: the time origin, hostname, exporter and schema versions, and the numbering of
 * memory kinds and overhead types (ENUM_CUDA_MEM_KIND, ENUM_CUPTI_OVERHEAD_TYPE when the export has
 * them). Returns an exit status.
 */
static int load_meta(struct nsys *n)
{
	const char *meta = has_table(n, "META_DATA_EXPORT") ? "META_DATA_EXPORT" :
			   has_table(n, "EXPORT_META_DATA") ? "EXPORT_META_DATA" : NULL;
	char *s = NULL;
	int status = EXIT_OK, i, yes;

	/* Without the enum tables: nsys numbers 0 pageable .. 6 managed static, 7 unknown; and overheads
	   0 undefined, 1 unknown, 2 driver compiler .. 8 command buffer full, in CUPTI's order. */
	memset(n->memkind, 0, sizeof(n->memkind));
	for (i = 0; i < 7; i++)
		n->memkind[i] = i + 1;
	memset(n->ovhkind, 0, sizeof(n->ovhkind));
	n->ovhkind[2] = 1;
	for (i = 3; i <= 8; i++)
		n->ovhkind[i] = (i - 2) << 16;
	if ((status = load_enum(n, "ENUM_CUDA_MEM_KIND", mem_kinds, sizeof(mem_kinds) / sizeof(mem_kinds[0]),
				n->memkind)) ||
	    (status = load_enum(n, "ENUM_CUPTI_OVERHEAD_TYPE", overhead_kinds,
				sizeof(overhead_kinds) / sizeof(overhead_kinds[0]), n->ovhkind)))
		return status;

	n->origin = 0;
	if ((yes = has_column(n, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) < 0)
		return n->err;
	if (yes && (status = load_origin(n)))
		return status;
	if ((yes = has_column(n, "TARGET_INFO_SYSTEM_ENV", "value")) < 0)
		return n->err;
	if (yes && (status = query_text(n, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = ? LIMIT 1",
					"Hostname", &n->hostname)))
		return status;
	if (meta) {
		struct buf sql;
		buf_init(&sql);
		buf_addf(&sql, "SELECT value FROM \"%s\" WHERE name = ? LIMIT 1", meta);
		status = query_text(n, sql.s, "EXPORT_PRODUCT_VERSION", &s);
		if (!status && s) {
			struct buf c;
			buf_init(&c);
			buf_addf(&c, "Nsight Systems %s", s);
			n->collector = c.s;
		}
		free(s);
		s = NULL;
		if (!status)
			status = query_text(n, sql.s, "EXPORT_SCHEMA_VERSION", &s);
		if (!status && s) {
			unsigned a = 0, b = 0, c = 0;
			if (sscanf(s, "%u.%u.%u", &a, &b, &c) >= 1 && a < 1000 && b < 100 && c < 100)
				n->format_version = (int64_t)a * 10000 + b * 100 + c;
		}
		free(s);
		buf_release(&sql);
	}
	return status;
}

/* Load TARGET_INFO_GPU, placed in processes by TARGET_INFO_CUDA_CONTEXT_INFO or _CUDA_DEVICE. */
static int load_gpus(struct nsys *n)
{
	struct names cols = { NULL, 0, 0 };
	struct buf sql;
	sqlite3_stmt *st;
	const char *map_sql = NULL, *map_cols[3];
	struct gpu *hw = NULL;
	size_t nhw = 0, hw_alloc = 0, i, k;
	int status = EXIT_OK, rc, yes;

	if (!has_table(n, "TARGET_INFO_GPU"))
		goto mapping;
	if ((status = load_names(n, "TARGET_INFO_GPU", &cols)))
		return status;
	if (!names_has(&cols, "id", 2)) {
		names_release(&cols);
		error("%s: TARGET_INFO_GPU: no column \"id\"", n->path);
		return EXIT_DATA;
	}
	buf_init(&sql);
	buf_addstr(&sql, "SELECT t.id, ");
	add_expr(&sql, &cols, "name");
	buf_addstr(&sql, ", ");
	add_expr(&sql, &cols, "uuid");
	for (i = 0; i < NGPU_NUM; i++) {
		buf_addstr(&sql, ", ");
		add_expr(&sql, &cols, gpu_cols[i].column);
	}
	buf_addstr(&sql, ", ");
	add_expr(&sql, &cols, "threadsPerWarp");
	buf_addstr(&sql, ", t.rowid FROM TARGET_INFO_GPU AS t ORDER BY t.id");
	names_release(&cols);
	st = prepare_rowid(n, sql.s, "TARGET_INFO_GPU", &status);
	buf_release(&sql);
	if (!st)
		return status;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = row_at("TARGET_INFO_GPU", st, 4 + (int)NGPU_NUM);
		struct gpu *g;
		const char *name, *uuid;
		int64_t id, warp, num[NGPU_NUM];
		int isnull, bad;
		bad = get_int(n, &r, 0, "id", 2, 0, &id, &isnull);
		if (!bad)
			bad = get_text(n, &r, 1, "name", 4, 1, &name);
		if (!bad)
			bad = get_text(n, &r, 2, "uuid", 4, 1, &uuid);
		for (i = 0; i < NGPU_NUM && !bad; i++)
			bad = get_int(n, &r, 3 + (int)i, gpu_cols[i].column, (int)strlen(gpu_cols[i].column), 1,
				      &num[i], &isnull);
		if (!bad)
			bad = get_int(n, &r, 3 + (int)NGPU_NUM, "threadsPerWarp", 14, 1, &warp, &isnull);
		if (bad < 0) {
			status = EXIT_SYSTEM;
			break;
		}
		if (bad)
			continue;	/* rejected: the device is declared without properties if used */
		ALLOC_GROW(hw, nhw + 1, hw_alloc);
		g = &hw[nhw++];
		memset(g, 0, sizeof(*g));
		g->pid = -1;
		g->id = g->hw = id;
		g->name = name ? xstrdup(name) : NULL;
		if (uuid && *uuid) {
			struct buf u;
			buf_init(&u);
			buf_addf(&u, "%s%s", strncmp(uuid, "GPU-", 4) ? "GPU-" : "", uuid);
			g->uuid = u.s;
		}
		for (i = 0; i < NGPU_NUM; i++)
			g->num[i] = num[i] * (gpu_cols[i].mul ? gpu_cols[i].mul : warp ? warp : 32) / gpu_cols[i].div;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		status = src_error(n, "TARGET_INFO_GPU");
	sqlite3_finalize(st);
	if (status)
		goto out;

mapping:
	/* Which process sees which GPU under which CUDA device id. */
	if ((yes = has_column(n, "TARGET_INFO_CUDA_CONTEXT_INFO", "hwId")) < 0 ||
	    (yes && (yes = has_column(n, "TARGET_INFO_CUDA_CONTEXT_INFO", "processId")) < 0)) {
		status = n->err;
		goto out;
	}
	if (yes) {
		n->map_table = "TARGET_INFO_CUDA_CONTEXT_INFO";
		n->map_pid = "processId";
		map_sql = "SELECT t.processId, t.deviceId, t.hwId, min(t.rowid) FROM TARGET_INFO_CUDA_CONTEXT_INFO "
			  "AS t WHERE t.processId IS NOT NULL AND t.deviceId IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2";
		map_cols[0] = "processId", map_cols[1] = "deviceId", map_cols[2] = "hwId";
	} else {
		if ((yes = has_column(n, "TARGET_INFO_CUDA_DEVICE", "gpuId")) < 0 ||
		    (yes && (yes = has_column(n, "TARGET_INFO_CUDA_DEVICE", "pid")) < 0)) {
			status = n->err;
			goto out;
		}
		if (yes) {
			n->map_table = "TARGET_INFO_CUDA_DEVICE";
			n->map_pid = "pid";
			map_sql = "SELECT t.pid, t.cudaId, t.gpuId, min(t.rowid) FROM TARGET_INFO_CUDA_DEVICE AS t "
				  "WHERE t.pid IS NOT NULL AND t.cudaId IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2";
			map_cols[0] = "pid", map_cols[1] = "cudaId", map_cols[2] = "gpuId";
		}
	}
	if (map_sql) {
		buf_init(&sql);
		buf_addstr(&sql, map_sql);
		st = prepare_rowid(n, sql.s, n->map_table, &status);
		buf_release(&sql);
	}
	if (map_sql && st) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct row r = row_at(n->map_table, st, 3);
			struct gpu *g;
			int64_t v[3];
			int isnull, bad = 0;
			for (i = 0; i < 3 && !bad; i++)
				bad = get_int(n, &r, (int)i, map_cols[i], (int)strlen(map_cols[i]), 1, &v[i], &isnull);
			if (bad < 0) {
				status = EXIT_SYSTEM;
				break;
			}
			if (bad)
				continue;
			if (isnull)
				v[2] = -1;	/* no hardware id: no properties */
			ALLOC_GROW(n->gpus, n->ngpus + 1, n->gpus_alloc);
			g = &n->gpus[n->ngpus++];
			memset(g, 0, sizeof(*g));
			g->pid = v[0];
			g->id = v[1];
			g->hw = v[2];
			for (k = 0; k < nhw; k++)
				if (hw[k].hw == g->hw) {
					g->name = hw[k].name ? xstrdup(hw[k].name) : NULL;
					g->uuid = hw[k].uuid ? xstrdup(hw[k].uuid) : NULL;
					memcpy(g->num, hw[k].num, sizeof(g->num));
					break;
				}
		}
		if (rc != SQLITE_DONE && !status)
			status = src_error(n, n->map_table);
		sqlite3_finalize(st);
	}
	if (status)
		goto out;
	if (!n->ngpus) {
		n->map_table = NULL;
		/* No mapping: every GPU of the machine goes to the first process under its nsys id. */
		n->gpus = hw;
		n->ngpus = nhw;
		n->gpus_alloc = hw_alloc;
		hw = NULL;
		nhw = 0;
	}
out:
	for (k = 0; k < nhw; k++) {
		free(hw[k].name);
		free(hw[k].uuid);
	}
	free(hw);
	return status;
}

/* NVTX domains named by domain-create events (eventType 75), their rows checked like every other. */
static int load_domains(struct nsys *n, const struct names *cols)
{
	struct buf sql;
	sqlite3_stmt *st;
	int rc, status = EXIT_OK, join = n->has_strings && names_has(cols, "textId", 6);
	if (!names_has(cols, "domainId", 8) || !names_has(cols, "eventType", 9))
		return EXIT_OK;
	buf_init(&sql);
	buf_addstr(&sql, "SELECT ");
	add_expr(&sql, cols, "globalTid");
	buf_addstr(&sql, ", t.domainId, ");
	add_expr(&sql, cols, "text");
	buf_addstr(&sql, ", ");
	add_expr(&sql, cols, "textId");
	buf_addf(&sql, ", %s, t.rowid FROM NVTX_EVENTS AS t", join ? "s.value" : "NULL");
	if (join)
		buf_addstr(&sql, " LEFT JOIN StringIds AS s ON s.id = t.textId");
	buf_addf(&sql, " WHERE t.eventType = %d AND t.domainId IS NOT NULL", NVTX_DOMAIN_CREATE);
	st = prepare_rowid(n, sql.s, "NVTX_EVENTS", &status);
	buf_release(&sql);
	if (!st)
		return status;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = row_at("NVTX_EVENTS", st, 5);
		const char *name;
		struct domain *d;
		int64_t gtid, id, text_id;
		int bad, isnull, id_null;
		if (!(bad = get_int(n, &r, 0, "globalTid", 9, 1, &gtid, &isnull)) &&
		    !(bad = get_int(n, &r, 1, "domainId", 8, 0, &id, &isnull)) &&
		    !(bad = get_text(n, &r, 2, "text", 4, 1, &name)) &&
		    !(bad = get_int(n, &r, 3, "textId", 6, 1, &text_id, &id_null)) && !name && !id_null &&
		    !(name = (const char *)sqlite3_column_text(st, 4)))
			bad = reject(n, &r, 3, "textId", 6, "\"textId\" %lld is not in StringIds", (long long)text_id);
		if (bad < 0) {
			status = EXIT_SYSTEM;
			break;
		}
		if (bad || !name)
			continue;
		ALLOC_GROW(n->domains, n->ndomains + 1, n->domains_alloc);
		d = &n->domains[n->ndomains++];
		d->pid = (gtid >> 24) & 0xFFFFFF;
		d->id = id;
		d->name = xstrdup(name);
	}
	if (rc != SQLITE_DONE && !status)
		status = src_error(n, "NVTX_EVENTS");
	sqlite3_finalize(st);
	return status;
}

/*
 * Build and prepare the SELECT of one source: pid, rowid, the process column, then every existing candidate
 * column of every col as stored (checked and converted in C: convert). A missing table leaves the cursor
 * without a statement. Returns an exit status.
 */
static int open_cursor(struct nsys *n, struct cursor *c, const struct source *src)
{
	struct names cols = { NULL, 0, 0 };
	struct buf sql, pid;
	int i, status, next_col = 3;

	memset(c, 0, sizeof(*c));
	c->src = src;
	if (!has_table(n, src->table))
		return EXIT_OK;
	if ((status = load_names(n, src->table, &cols)))
		return status;
	buf_init(&sql);
	buf_init(&pid);
	add_pid_expr(&pid, &cols, src->pid_col);
	buf_addf(&sql, "SELECT %s, t.rowid, ", pid.s);
	if (names_has(&cols, src->pid_col, strlen(src->pid_col))) {
		buf_addf(&sql, "t.\"%s\"", src->pid_col);
		c->cname[2] = src->pid_col;
		c->clen[2] = (int)strlen(src->pid_col);
	} else {
		buf_addstr(&sql, "NULL");
	}
	for (i = 0; i < src->ncols; i++) {
		const struct col *k = &src->cols[i];
		const char *p;
		c->at[i] = next_col;
		c->field[i] = k->field ? rec_field(src->type, k->field) : -1;
		if (k->field && c->field[i] < 0) {
			error("%s: internal error: record %s has no field \"%s\"", n->path,
			      rec_specs[src->type].wire, k->field);
			status = EXIT_SYSTEM;
			goto out;
		}
		for (p = k->names; p && *p;) {
			size_t len = strcspn(p, "|");
			if (names_has(&cols, p, len)) {
				buf_addf(&sql, ", t.\"%.*s\"", (int)len, p);
				c->cname[next_col] = p;
				c->clen[next_col++] = (int)len;
				c->ncand[i]++;
			}
			p += len;
			if (*p == '|')
				p++;
		}
		if (k->req && !c->ncand[i]) {
			error("%s: %s: no column \"%s\"", n->path, src->table, k->names);
			status = EXIT_DATA;
			goto out;
		}
		if (c->ncand[i] && (k->xf == X_STR || k->xf == X_MANGLED || k->xf == X_INTERN || k->xf == X_API) &&
		    !n->has_strings) {
			error("%s: %s: string ids in \"%s\" but no table StringIds", n->path, src->table, k->names);
			status = EXIT_DATA;
			goto out;
		}
	}
	buf_addf(&sql, " FROM \"%s\" AS t WHERE ", src->table);
	add_pid_ok(&sql, &cols, src->pid_col);
	if (n->per_pid)
		buf_addf(&sql, " AND %s = ?1", pid.s);
	else if (n->npids > 1)
		buf_addstr(&sql, " ORDER BY 1");
	c->st = prepare_rowid(n, sql.s, src->table, &status);
out:
	buf_release(&sql);
	buf_release(&pid);
	names_release(&cols);
	return status;
}

/* The export's column behind each result column of the NVTX cursor. */
static const char *const nvtx_cols[] = { "globalTid", "globalTid", "eventType", "start", "end", "text",
					 "textId", "rowid", "domainId", "rangeId" };

/*
 * The NVTX cursor: ranges and marks sorted by process, thread, domain, start and longest first, so
 * push/pop depths follow from a stack. Result columns c0..c9: pid, then nvtx_cols as stored.
 */
static int open_nvtx(struct nsys *n, const struct names *cols)
{
	struct buf sql;
	size_t i;
	int status = EXIT_OK;
	if (!names_has(cols, "eventType", 9) || !names_has(cols, "start", 5)) {
		error("%s: NVTX_EVENTS: no column \"%s\"", n->path,
		      names_has(cols, "start", 5) ? "eventType" : "start");
		return EXIT_DATA;
	}
	buf_init(&sql);
	buf_addstr(&sql, "SELECT ");
	add_pid_expr(&sql, cols, "globalTid");
	buf_addstr(&sql, " AS c0");
	for (i = 1; i < sizeof(nvtx_cols) / sizeof(nvtx_cols[0]); i++) {
		buf_addstr(&sql, ", ");
		if (!strcmp(nvtx_cols[i], "rowid"))
			buf_addstr(&sql, "t.rowid");
		else
			add_expr(&sql, cols, nvtx_cols[i]);
		buf_addf(&sql, " AS c%zu", i);
	}
	buf_addf(&sql, " FROM NVTX_EVENTS AS t WHERE t.eventType IN (%d, %d, %d) AND ", NVTX_MARK, NVTX_PUSHPOP,
		 NVTX_STARTEND);
	add_pid_ok(&sql, cols, "globalTid");
	buf_addf(&sql, "%s ORDER BY c0, c1, c8, c3, coalesce(c4, 9223372036854775807) DESC",
		 n->per_pid ? " AND c0 = ?1" : "");
	memset(&n->nvtx, 0, sizeof(n->nvtx));
	n->nvtx.st = prepare_rowid(n, sql.s, "NVTX_EVENTS", &status);
	buf_release(&sql);
	return status;
}

/* The processes: every pid with records in any source, sorted; {0} when there is none. */
static int load_pids(struct nsys *n)
{
	struct buf sql;
	sqlite3_stmt *st;
	size_t i;
	int k = 0, rc, status = EXIT_OK;

	buf_init(&sql);
	buf_addstr(&sql, "SELECT DISTINCT p FROM (");
	for (i = 0; i < NSOURCES; i++) {
		struct names cols = { NULL, 0, 0 };
		if (!has_table(n, sources[i].table))
			continue;
		if ((status = load_names(n, sources[i].table, &cols)))
			goto out;
		buf_addf(&sql, "%sSELECT ", k++ ? " UNION " : "");
		add_pid_expr(&sql, &cols, sources[i].pid_col);
		buf_addf(&sql, " AS p FROM \"%s\" AS t WHERE ", sources[i].table);
		add_pid_ok(&sql, &cols, sources[i].pid_col);
		names_release(&cols);
	}
	if (has_table(n, "NVTX_EVENTS")) {
		struct names cols = { NULL, 0, 0 };
		if ((status = load_names(n, "NVTX_EVENTS", &cols)))
			goto out;
		if (names_has(&cols, "eventType", 9)) {
			buf_addf(&sql, "%sSELECT ", k++ ? " UNION " : "");
			add_pid_expr(&sql, &cols, "globalTid");
			buf_addf(&sql, " AS p FROM NVTX_EVENTS AS t WHERE t.eventType IN (%d, %d, %d) AND ", NVTX_MARK,
				 NVTX_PUSHPOP, NVTX_STARTEND);
			add_pid_ok(&sql, &cols, "globalTid");
		}
		names_release(&cols);
	}
	if (n->map_table) {
		/* Processes that opened a CUDA context, even if they recorded nothing. */
		buf_addf(&sql, "%sSELECT \"%s\" AS p FROM \"%s\" WHERE typeof(\"%s\") = 'integer'", k++ ? " UNION " : "",
			 n->map_pid, n->map_table, n->map_pid);
	}
	buf_addstr(&sql, ") ORDER BY p");
	if (k) {
		if (!(st = src_prepare(n, sql.s, "processes", &status)))
			goto out;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			ALLOC_GROW(n->pids, n->npids + 1, n->pids_alloc);
			n->pids[n->npids++] = sqlite3_column_int64(st, 0);
		}
		if (rc != SQLITE_DONE)
			status = src_error(n, "processes");
		sqlite3_finalize(st);
	}
	if (!status && !n->npids) {
		ALLOC_GROW(n->pids, 1, n->pids_alloc);
		n->pids[n->npids++] = 0;
	}
out:
	buf_release(&sql);
	return status;
}

/* Length of an API name without its "_v<digits>" suffix (cudaLaunchKernel_v7000 -> cudaLaunchKernel). */
static size_t api_name_len(const char *s)
{
	size_t len = strlen(s), i = len;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < len && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
		return i - 2;
	return len;
}

/*
 * Our string id for StringIds id `id`, read from result column i of r's row (the export's column name/len;
 * api: a CUDA API name, its version suffix dropped), into *out: 0, 1 when the id is not in StringIds (the
 * row is rejected), -1 on a failure (n->err set when the export failed).
 */
static int get_string(struct nsys *n, const struct row *r, int i, const char *name, int len, int64_t id,
		      int api, int64_t *out)
{
	int64_t db = idcache_get(&n->strs, id);
	int rc;
	if (db >= 0) {
		*out = db;
		return 0;
	}
	sqlite3_bind_int64(n->str_st, 1, id);
	rc = sqlite3_step(n->str_st);
	if (rc == SQLITE_ROW && sqlite3_column_type(n->str_st, 0) != SQLITE_NULL) {
		const char *text = (const char *)sqlite3_column_text(n->str_st, 0);
		db = sink_string(n->sink, text, api ? api_name_len(text) : strlen(text));
		sqlite3_reset(n->str_st);
		if (db < 0)
			return -1;
		intmap_put(&n->strs, id + 1, db);
		*out = db;
		return 0;
	}
	sqlite3_reset(n->str_st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		src_error(n, "StringIds");
		return -1;
	}
	return reject(n, r, i, name, len, "\"%.*s\" %lld is not in StringIds", len, name, (long long)id);
}

/*
 * Check the current row of c and convert it into n->vals. Returns 1 to store it, 0 when it was rejected
 * (recorded), -1 on a failure.
 */
static int convert(struct nsys *n, struct cursor *c)
{
	const struct source *src = c->src;
	struct row r = row_at(src->table, c->st, 1);
	struct value scratch;
	int i, rc, pick[MAX_COLS];
	for (i = 0; i < rec_specs[src->type].nfields; i++) {
		n->vals[i].null = 1;	/* fields no col fills */
		n->vals[i].i = 0;
	}
	if (c->clen[2]) {	/* the process column, read by the SELECT's pid */
		int64_t x;
		int isnull;
		if ((rc = get_int(n, &r, 2, c->cname[2], c->clen[2], 1, &x, &isnull)))
			return rc < 0 ? -1 : 0;
	}
	for (i = 0; i < src->ncols; i++) {
		const struct col *k = &src->cols[i];
		struct value *v = c->field[i] >= 0 ? &n->vals[c->field[i]] : &scratch;
		const char *text = NULL, *name;
		int at = c->at[i], len, isnull = 1, j;
		int64_t x = 0, id;

		v->null = 0;
		v->i = 0;
		/* the first candidate column that is not NULL (or the last one) */
		for (j = 0; j + 1 < c->ncand[i] && sqlite3_column_type(c->st, at + j) == SQLITE_NULL; j++)
			;
		at += j;
		pick[i] = at;
		name = c->ncand[i] ? c->cname[at] : k->field;
		len = c->ncand[i] ? c->clen[at] : (int)strlen(name ? name : "");
		if (!c->ncand[i] || k->xf == X_CONST)
			rc = 0;
		else if (k->xf == X_TEXT)
			rc = get_text(n, &r, at, name, len, !k->req, &text), isnull = !text;
		else
			rc = get_int(n, &r, at, name, len, !k->req, &x, &isnull);
		if (rc)
			return rc < 0 ? -1 : 0;
		n->raw[i] = x;
		n->raw_null[i] = isnull;
		switch (k->xf) {
		case X_END:
			if (x < n->raw[i - 1])
				return reject(n, &r, at, name, len, "\"%.*s\" %lld is before \"%.*s\" %lld", len, name,
					      (long long)x, c->clen[pick[i - 1]], c->cname[pick[i - 1]],
					      (long long)n->raw[i - 1]) < 0 ? -1 : 0;
			/* fall through */
		case X_TIME:
			if (__builtin_add_overflow(n->origin, x, &v->i))
				return reject(n, &r, at, name, len, "\"%.*s\" %lld overflows the time origin %lld",
					      len, name, (long long)x, (long long)n->origin) < 0 ? -1 : 0;
			break;
		case X_INT:
			v->i = isnull ? k->dflt : x;
			break;
		case X_INTN:
			v->null = isnull;
			v->i = x;
			break;
		case X_OPT:
			v->null = isnull || x < 0 || x == CUPTI_INVALID;
			v->i = x;
			break;
		case X_NONE0:
			v->i = isnull || x == CUPTI_INVALID ? 0 : x;
			break;
		case X_CONST:
			v->i = k->dflt;
			break;
		case X_MANGLED:
			if (!isnull && i > 0 && !n->raw_null[i - 1] && n->raw[i - 1] == x)
				isnull = 1;
			/* fall through */
		case X_STR:
		case X_INTERN:
		case X_API:
			if (isnull) {
				v->null = 1;
				break;
			}
			if ((rc = get_string(n, &r, at, name, len, x, k->xf == X_API, &id)))
				return rc < 0 ? -1 : 0;
			v->i = id;
			break;
		case X_TEXT:
			if (!text) {
				v->null = 1;
				break;
			}
			if ((v->i = sink_string(n->sink, text, strlen(text))) < 0)
				return -1;
			break;
		case X_TID:
			v->i = isnull ? k->dflt : (x & 0xFFFFFF);
			v->null = v->i < 0;
			break;
		case X_MEMKIND:
			v->i = !isnull && x >= 0 && x < 16 ? n->memkind[x] : 0;
			break;
		case X_OVHKIND:
			v->i = !isnull && x >= 0 && x < 16 ? n->ovhkind[x] : 0;
			break;
		case X_SYNCKIND:
			v->i = x >= 1 && x <= 4 ? x : 0;
			break;
		case X_MEMOP:
			if (x != 0 && x != 1)
				return reject(n, &r, at, name, len, "\"%.*s\" is %lld, not 0 (allocation) or 1 (free)",
					      len, name, (long long)x) < 0 ? -1 : 0;
			v->i = x + 1;
			break;
		}
	}
	return 1;
}

/* Step a cursor; returns EXIT_OK or the status of a read failure. */
static int advance(struct nsys *n, struct cursor *c, const char *where)
{
	int rc = sqlite3_step(c->st);
	c->started = 1;
	if (rc == SQLITE_ROW) {
		c->has_row = 1;
		c->pid = sqlite3_column_int64(c->st, 0);
		return EXIT_OK;
	}
	c->has_row = 0;
	return rc == SQLITE_DONE ? EXIT_OK : src_error(n, where);
}

/* Position a cursor on the first row of process pid: run it again for that pid, or once at the start. */
static int restart(struct nsys *n, struct cursor *c, int64_t pid, const char *where)
{
	if (n->per_pid) {
		sqlite3_reset(c->st);
		sqlite3_bind_int64(c->st, 1, pid);
		c->started = 0;
	}
	return c->started ? EXIT_OK : advance(n, c, where);
}

/* Store the rows of process `pid` from one source (or pass over them when skip). Returns an exit status. */
static int drain(struct nsys *n, struct cursor *c, int64_t pid, int skip)
{
	enum rec_type t;
	int status, dev;
	if (!c->st || (skip && (n->per_pid || n->npids == 1)))
		return EXIT_OK;		/* nothing to pass over: the next process runs its own scan */
	t = c->src->type;
	dev = t == R_KERNEL || t == R_MEMCPY || t == R_MEMSET ? rec_field(t, "device") : -1;
	if ((status = restart(n, c, pid, c->src->table)))
		return status;
	while (c->has_row && c->pid <= pid) {
		if (!skip) {
			int rc = convert(n, c);
			if (rc < 0)
				return n->err ? n->err : EXIT_SYSTEM;
			if (rc == 1 && sink_add(n->sink, t, n->vals))
				return EXIT_SYSTEM;
			if (rc == 1 && dev >= 0 && !n->vals[dev].null)
				idset_add(&n->seen, n->vals[dev].i);
		}
		if ((status = advance(n, c, c->src->table)))
			return status;
	}
	return EXIT_OK;
}

/* Set every field of a type-t record to NULL (fields the export has nothing for stay so). */
static void clear(struct value *v, enum rec_type t)
{
	int i;
	for (i = 0; i < rec_specs[t].nfields; i++) {
		v[i].null = 1;
		v[i].i = 0;
		v[i].s = NULL;
	}
}

/* Set field f (an index into the record's fields) of a record. */
static void set(struct value *v, int f, int64_t x, int null)
{
	v[f].i = x;
	v[f].null = null;
}

/* Set field `field` (wire name) of a type-t record; a field the record does not have is ignored. */
static void put(struct value *v, enum rec_type t, const char *field, int64_t x, int null)
{
	int f = rec_field(t, field);
	if (f >= 0)
		set(v, f, x, null);
}

/* Our string id of NVTX domain `id` in process pid: 0 for the default domain (NULL), -1 on failure. */
static int64_t domain_id(struct nsys *n, int64_t pid, int isnull, int64_t id)
{
	char name[64];
	const char *s = NULL;
	size_t i;
	if (isnull || id == 0)
		return 0;
	for (i = 0; i < n->ndomains && !s; i++)
		if (n->domains[i].id == id && n->domains[i].pid == pid)
			s = n->domains[i].name;
	if (!s) {
		snprintf(name, sizeof(name), "nvtx domain %lld", (long long)id);
		s = name;
	}
	return sink_string(n->sink, s, strlen(s));
}

/* Push/pop nesting depth of a range starting at `start` and ending at `end` on the current stack. */
static int64_t depth_of(struct nsys *n, int64_t gtid, int64_t domain, int64_t start, int64_t end)
{
	int64_t d;
	if (!n->nstack || gtid != n->stack_tid || domain != n->stack_domain) {
		n->nstack = 0;
		n->stack_tid = gtid;
		n->stack_domain = domain;
	}
	while (n->nstack && n->stack[n->nstack - 1] <= start)
		n->nstack--;
	d = (int64_t)n->nstack;
	ALLOC_GROW(n->stack, n->nstack + 1, n->stack_alloc);
	n->stack[n->nstack++] = end;
	return d;
}

/* An NVTX range or mark, checked (times absolute, name our string id). */
struct nvtx_row {
	int64_t gtid, type, start, end, domain, id, name;
	int end_null, domain_null, id_null;
};

/*
 * Check the current NVTX row (result columns 1..9 as stored) into *e: 0, 1 when it is rejected (recorded),
 * -1 on a failure. A NULL end is an open range; a name comes from text, else textId, else is empty.
 */
static int nvtx_check(struct nsys *n, sqlite3_stmt *st, struct nvtx_row *e)
{
	struct row r = row_at("NVTX_EVENTS", st, 7);
	const char *text;
	int64_t text_id;
	int rc, isnull, id_null;
#define NV(i) (i), nvtx_cols[i], (int)strlen(nvtx_cols[i])
	if ((rc = get_int(n, &r, NV(1), 1, &e->gtid, &isnull)) || (rc = get_int(n, &r, NV(2), 0, &e->type, &isnull)) ||
	    (rc = get_int(n, &r, NV(3), 0, &e->start, &isnull)) ||
	    (rc = get_int(n, &r, NV(4), 1, &e->end, &e->end_null)) || (rc = get_text(n, &r, NV(5), 1, &text)) ||
	    (rc = get_int(n, &r, NV(6), 1, &text_id, &id_null)) ||
	    (rc = get_int(n, &r, NV(8), 1, &e->domain, &e->domain_null)) ||
	    (rc = get_int(n, &r, NV(9), 1, &e->id, &e->id_null)))
		return rc;
	if (!e->end_null && e->end < e->start)
		return reject(n, &r, NV(4), "\"end\" %lld is before \"start\" %lld", (long long)e->end,
			      (long long)e->start);
	if (__builtin_add_overflow(n->origin, e->start, &e->start) ||
	    (!e->end_null && __builtin_add_overflow(n->origin, e->end, &e->end)))
		return reject(n, &r, NV(3), "a time overflows the time origin %lld", (long long)n->origin);
	if (text)
		e->name = sink_string(n->sink, text, strlen(text));
	else if (!id_null)
		return get_string(n, &r, NV(6), text_id, 0, &e->name);
	else
		e->name = sink_string(n->sink, "", 0);
#undef NV
	return e->name < 0 ? -1 : 0;
}

/* Store the NVTX ranges and marks of process pid (or pass over them). Returns an exit status. */
static int drain_nvtx(struct nsys *n, int64_t pid, int skip)
{
	struct cursor *c = &n->nvtx;
	const struct nvtx_fields *fx = &n->fx;
	int status;
	if (!c->st || (skip && (n->per_pid || n->npids == 1)))
		return EXIT_OK;
	if ((status = restart(n, c, pid, "NVTX_EVENTS")))
		return status;
	n->nstack = 0;
	while (c->has_row && c->pid <= pid) {
		struct value *v = n->vals;
		struct nvtx_row e;
		int64_t dom;
		int rc;

		if (skip)
			goto next;
		if ((rc = nvtx_check(n, c->st, &e)) < 0)
			return n->err ? n->err : EXIT_SYSTEM;
		if (rc)
			goto next;
		dom = domain_id(n, c->pid, e.domain_null, e.domain);
		if (dom < 0)
			return EXIT_SYSTEM;
		if (e.type == NVTX_MARK) {
			clear(v, R_MARKER);
			set(v, fx->m_ts, e.start, 0);
			set(v, fx->m_thread, e.gtid & 0xFFFFFF, 0);
			set(v, fx->m_name, e.name, 0);
			set(v, fx->m_domain, dom, !dom);
			if (sink_add(n->sink, R_MARKER, v))
				return EXIT_SYSTEM;
			goto next;
		}
		clear(v, R_RANGE);
		set(v, fx->r_start, e.start, 0);
		set(v, fx->r_end, e.end, e.end_null);
		set(v, fx->r_thread, e.gtid & 0xFFFFFF, 0);
		set(v, fx->r_name, e.name, 0);
		set(v, fx->r_domain, dom, !dom);
		set(v, fx->r_kind, e.type == NVTX_PUSHPOP ? 1 : 2, 0);
		set(v, fx->r_depth, e.type == NVTX_PUSHPOP ?
		    depth_of(n, e.gtid, e.domain, e.start, e.end_null ? INT64_MAX : e.end) : 0,
		    e.type != NVTX_PUSHPOP);
		set(v, fx->r_id, e.id, e.id_null);
		if (sink_add(n->sink, R_RANGE, v))
			return EXIT_SYSTEM;
next:
		if ((status = advance(n, c, "NVTX_EVENTS")))
			return status;
	}
	return EXIT_OK;
}

/* Add one device record; g NULL declares a device seen in the records but not in the export's GPU list. */
static int add_device(struct nsys *n, int64_t id, const struct gpu *g)
{
	struct value *v = n->vals;
	int name = rec_field(R_DEVICE, "name"), uuid = rec_field(R_DEVICE, "uuid");
	size_t i;
	clear(v, R_DEVICE);
	put(v, R_DEVICE, "id", id, 0);
	if (name >= 0 && g && g->name) {
		v[name].s = g->name;
		v[name].null = 0;
	}
	if (uuid >= 0 && g && g->uuid) {
		v[uuid].s = g->uuid;
		v[uuid].null = 0;
	}
	for (i = 0; i < NGPU_NUM; i++)
		put(v, R_DEVICE, gpu_cols[i].field, g ? g->num[i] : 0, 0);
	idset_add(&n->declared, id);
	return sink_add(n->sink, R_DEVICE, v);
}

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
			struct row r = row_at("PROCESSES", n->program_st, 1);
			if ((rc = get_text(n, &r, 0, "name", 4, 1, &name)) < 0)
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
	n->in_process = 1;
	for (i = 0; i < n->npending; i++)
		if (record(n, n->pending[i].rowid, n->pending[i].reason, n->pending[i].excerpt))
			return -1;	/* release frees them */
	for (i = 0; i < n->npending; i++) {
		free(n->pending[i].reason);
		free(n->pending[i].excerpt);
	}
	n->npending = 0;
	n->seen.n = n->declared.n = 0;
	for (i = 0; i < n->ngpus; i++)
		if (n->gpus[i].pid == pid || (n->gpus[i].pid < 0 && first))
			if (add_device(n, n->gpus[i].id, &n->gpus[i]))
				return -1;
	return 0;
}

/* Read every process from the open cursors inside the caller's transaction. Returns an exit status. */
static const char no_gpu_read[] = "no GPU activity was read (no kernels, copies or memsets)";

/* 1 when the export has GPU rows (read or not, rejected or not) but no kernel, copy or memset was read. */
static int no_gpu(const struct nsys *n)
{
	return !n->totals[R_KERNEL] && !n->totals[R_MEMCPY] && !n->totals[R_MEMSET] && (n->unread_rows || n->rejected);
}

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
			if ((status = drain(n, &n->cursors[i], pid, skip)))
				return status;
		if ((status = drain_nvtx(n, pid, skip)))
			return status;
		if (skip)
			continue;
		for (i = 0; i < n->seen.n; i++)
			if (!idset_has(&n->declared, n->seen.v[i]) && add_device(n, n->seen.v[i], NULL))
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
	chunk = xmalloc(HASH_SPAN);
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

/* Reject the rows of `table` whose process column `col` holds text or a blob (add_pid_ok). */
static int reject_pids_of(struct nsys *n, const char *table, const char *col, const char *where)
{
	struct names cols = { NULL, 0, 0 };
	struct buf sql;
	sqlite3_stmt *st;
	int status, rc = SQLITE_DONE, has;
	if ((status = load_names(n, table, &cols)))
		return status;
	has = names_has(&cols, col, strlen(col));
	names_release(&cols);
	if (!has)
		return EXIT_OK;
	buf_init(&sql);
	buf_addf(&sql, "SELECT t.rowid, t.\"%s\" FROM \"%s\" AS t WHERE typeof(t.\"%s\") IN ('text', 'blob')%s",
		 col, table, col, where);
	st = prepare_rowid(n, sql.s, table, &status);
	buf_release(&sql);
	while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = row_at(table, st, 0);
		int64_t x;
		int isnull;
		if (get_int(n, &r, 1, col, (int)strlen(col), 1, &x, &isnull) < 0) {
			status = EXIT_SYSTEM;
			break;
		}
	}
	if (st && rc != SQLITE_DONE && rc != SQLITE_ROW)
		status = src_error(n, table);
	sqlite3_finalize(st);
	return status;
}

/* Reject every row whose process column holds text or a blob, in every table read. */
static int reject_bad_pids(struct nsys *n)
{
	char nvtx[64];
	size_t i;
	int status = EXIT_OK;
	for (i = 0; i < NSOURCES && !status; i++)
		if (has_table(n, sources[i].table))
			status = reject_pids_of(n, sources[i].table, sources[i].pid_col, "");
	snprintf(nvtx, sizeof(nvtx), " AND t.eventType IN (%d, %d, %d)", NVTX_MARK, NVTX_PUSHPOP, NVTX_STARTEND);
	if (!status && has_table(n, "NVTX_EVENTS"))
		status = reject_pids_of(n, "NVTX_EVENTS", "globalTid", nvtx);
	return status;
}

/*
 * Tables of GPU activity, by name: those no source reads are counted (count_unread). Prefixes, and
 * "*_WORKLOAD" for the graphics APIs' GPU workloads (DX12, Vulkan, OpenGL).
 */
static const char *const gpu_tables[] = { "CUPTI_ACTIVITY_KIND_", "CUDA_GPU_", "CUDA_UM_", "CUDA_GRAPH_",
					  "GPU_", "NVVIDEO_", "*_WORKLOAD" };

static int is_gpu_table(const char *name)
{
	size_t i;
	for (i = 0; i < NSOURCES; i++)
		if (!strcmp(name, sources[i].table))
			return 0;	/* read */
	for (i = 0; i < sizeof(gpu_tables) / sizeof(gpu_tables[0]); i++)
		if (gpu_tables[i][0] == '*' ? ends_with(name, gpu_tables[i] + 1) :
		    !strncmp(name, gpu_tables[i], strlen(gpu_tables[i])))
			return 1;
	return 0;
}

/*
 * Count the rows of the export's GPU-activity tables that gpuprof does not read, per process (by globalPid
 * or globalTid; rows of a process that has nothing gpuprof reads go to the first process), into n->unread.
 * Returns an exit status.
 */
static int count_unread(struct nsys *n)
{
	size_t i, k;
	int status = EXIT_OK, rc;
	for (i = 0; i < n->tables.n && !status; i++) {
		struct names cols = { NULL, 0, 0 };
		struct buf sql;
		sqlite3_stmt *st;
		const char *table = n->tables.v[i];
		if (!is_gpu_table(table))
			continue;
		if ((status = load_names(n, table, &cols)))
			break;
		buf_init(&sql);
		buf_addstr(&sql, "SELECT ");
		add_pid_expr(&sql, &cols, names_has(&cols, "globalPid", 9) ? "globalPid" : "globalTid");
		buf_addf(&sql, ", count(*) FROM \"%s\" AS t GROUP BY 1", table);
		names_release(&cols);
		st = src_prepare(n, sql.s, table, &status);
		buf_release(&sql);
		if (!st)
			break;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct unread *u;
			int64_t pid = sqlite3_column_int64(st, 0);
			for (k = 0; k < n->npids && n->pids[k] != pid; k++)
				;
			ALLOC_GROW(n->unread, n->nunread + 1, n->unread_alloc);
			u = &n->unread[n->nunread++];
			u->table = table;
			u->pid = k < n->npids ? pid : n->pids[0];
			u->count = sqlite3_column_int64(st, 1);
			n->unread_rows += u->count;
		}
		if (rc != SQLITE_DONE)
			status = src_error(n, table);
		sqlite3_finalize(st);
	}
	return status;
}

/* Open the export and prepare everything that reads it, before anything is written. */
static int prepare(struct nsys *n)
{
	struct names cols = { NULL, 0, 0 };
	char program_sql[] = "SELECT t.name, t.rowid FROM PROCESSES AS t WHERE t.pid = ? LIMIT 1";
	size_t i;
	int status, yes;

	if (sqlite3_open_v2(n->path, &n->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return src_error(n, "open");
	if ((status = load_names(n, NULL, &n->tables)))
		return status;
	n->has_strings = has_table(n, "StringIds");
	if (n->has_strings &&
	    !(n->str_st = src_prepare(n, "SELECT value FROM StringIds WHERE id = ?", "StringIds", &status)))
		return status;
	if ((status = load_meta(n)) || (status = load_gpus(n)) || (status = load_pids(n)) ||
	    (status = reject_bad_pids(n)) || (status = count_unread(n)))
		return status;
	n->per_pid = n->npids > 1 && n->npids <= SCAN_PIDS;
	for (i = 0; i < NSOURCES; i++)
		if ((status = open_cursor(n, &n->cursors[i], &sources[i])))
			return status;
	if (has_table(n, "NVTX_EVENTS")) {
		if ((status = load_names(n, "NVTX_EVENTS", &cols)))
			return status;
		status = load_domains(n, &cols);
		if (!status)
			status = open_nvtx(n, &cols);
		names_release(&cols);
		if (status)
			return status;
	}
	if ((yes = has_column(n, "PROCESSES", "name")) < 0 || (yes && (yes = has_column(n, "PROCESSES", "pid")) < 0))
		return n->err;
	if (yes)
		n->program_st = prepare_rowid(n, program_sql, "PROCESSES", &status);
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
	names_release(&n->tables);
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
	if (rec_indices(nvtx_index, sizeof(nvtx_index) / sizeof(nvtx_index[0]), &n.fx))
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
	sqlite3_stmt *st = NULL;
	int found = 0, rc = SQLITE_ERROR;
	if (is_dir || n < 16 || memcmp(head, "SQLite format 3", 16))
		return 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    (rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?)",
				     -1, &st, NULL)) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, "CUPTI_ACTIVITY_KIND_KERNEL", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, "TARGET_INFO_GPU", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, "NVTX_EVENTS", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, "StringIds", -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		found = rc == SQLITE_ROW;
	}
	/* A damaged .sqlite file is claimed too, so that ingest says what is wrong with it. */
	if (!found && rc != SQLITE_DONE && ends_with(path, ".sqlite"))
		found = 1;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return found;
}

const struct reader nsys_reader = {
	"nsys", "Nsight Systems SQLite export (.sqlite)", NULL, nsys_detect, nsys_ingest
};
